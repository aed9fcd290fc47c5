package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestArm64BuildUnderQemu is checkOtherBuild of the linux/arm64 build
// under qemu's user-mode emulator: the compiler fuses floating-point
// multiply-adds on arm64 (not on amd64), so arithmetic that rounds
// differently there would change a challenge, a score or a ratio; macOS
// on Apple silicon compiles the same way. It runs with LEDGER_ARM64=1
// (make arm64), which needs Debian's qemu-user-static.
func TestArm64BuildUnderQemu(t *testing.T) {
	if os.Getenv("LEDGER_ARM64") == "" {
		t.Skip("the arm64 build under qemu runs with LEDGER_ARM64=1 (make arm64)")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH == "arm64" {
		t.Skipf("qemu runs the linux/arm64 build on another Linux, not on %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	emulator, err := lookFirst("qemu-aarch64-static", "qemu-aarch64")
	if err != nil {
		t.Fatal("LEDGER_ARM64 is set but qemu's arm64 emulator is not installed (Debian: apt-get install qemu-user-static)")
	}
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	b := &otherBuild{
		name: "linux/arm64", emulator: emulator, exe: filepath.Join(dir, "ledger"),
		env:     append(os.Environ(), "TMPDIR="+tmp),
		path:    func(p string) string { return p },
		tempDir: func(*testing.T) string { return tmp },
	}
	buildLedger(t, "linux", "arm64", b.exe)
	if code, out, errs := b.run(t, "version"); code != 0 || !strings.HasPrefix(out, "ledger ") {
		t.Fatalf("ledger version under qemu: exit %d: %q %q", code, out, errs)
	}
	checkOtherBuild(t, b)
}
