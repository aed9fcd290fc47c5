package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestWindowsBuildUnderWine is checkOtherBuild of the Windows (amd64)
// build under Wine. It runs with LEDGER_WINDOWS=1 (make windows), which
// needs Debian's wine64 and, for the DLL shim
// testdata/wine/bcryptprimitives.c says why Wine 8 needs, the mingw-w64 C
// compiler.
func TestWindowsBuildUnderWine(t *testing.T) {
	if os.Getenv("LEDGER_WINDOWS") == "" {
		t.Skip("the Windows build under Wine runs with LEDGER_WINDOWS=1 (make windows)")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("Wine runs the amd64 Windows build on linux/amd64, not on %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	checkOtherBuild(t, newWine(t))
}

func newWine(t *testing.T) *otherBuild {
	t.Helper()
	loader, err := lookFirst("wine64", "wine", "/usr/lib/wine/wine64")
	if err != nil {
		t.Fatal("LEDGER_WINDOWS is set but Wine is not installed (Debian: apt-get install wine64)")
	}
	cc, err := lookFirst("x86_64-w64-mingw32-gcc")
	if err != nil {
		t.Fatal("LEDGER_WINDOWS is set but the mingw-w64 C compiler is not installed (Debian: apt-get install gcc-mingw-w64-x86-64-win32)")
	}
	dir := t.TempDir()
	prefix := filepath.Join(dir, "prefix")
	system32 := filepath.Join(prefix, "drive_c", "windows", "system32")
	if err := os.MkdirAll(system32, 0o755); err != nil {
		t.Fatal(err)
	}
	// Go's runtime loads the DLL from system32 only; Wine takes a DLL
	// there that it does not have itself as a native one.
	shim := exec.Command(cc, "-shared", "-O2", "-o", filepath.Join(system32, "bcryptprimitives.dll"),
		filepath.Join("testdata", "wine", "bcryptprimitives.c"), "-ladvapi32")
	if out, err := shim.CombinedOutput(); err != nil {
		t.Fatalf("build the bcryptprimitives shim: %v: %s", err, out)
	}
	b := &otherBuild{
		name: "Windows", emulator: loader, exe: filepath.Join(dir, "ledger.exe"),
		env: append(os.Environ(), "WINEPREFIX="+prefix, "WINEDEBUG=-all"),
		// Wine's drive Z: is /.
		path: func(p string) string {
			abs, err := filepath.Abs(p)
			if err != nil {
				panic(err)
			}
			return "Z:" + strings.ReplaceAll(abs, "/", `\`)
		},
		tempDir: func(t *testing.T) string {
			dirs, _ := filepath.Glob(filepath.Join(prefix, "drive_c", "users", "*", "*Temp*"))
			if len(dirs) != 1 {
				t.Fatalf("Windows' temporary directory under %s: %v", prefix, dirs)
			}
			return dirs[0]
		},
	}
	buildLedger(t, "windows", "amd64", b.exe)
	t.Cleanup(func() {
		// wineserver outlives its last client for a few seconds; it
		// holds the prefix, which TempDir removes next.
		server, err := lookFirst(filepath.Join(filepath.Dir(loader), "wineserver"), "wineserver")
		if err != nil {
			return
		}
		kill := exec.Command(server, "-k")
		kill.Env = b.env
		_ = kill.Run()
	})
	// The first run makes the prefix, and Wine says so on stderr.
	if code, out, errs := b.run(t, "version"); code != 0 || !strings.HasPrefix(out, "ledger ") {
		t.Fatalf("ledger.exe version under Wine: exit %d: %q %q", code, out, errs)
	}
	return b
}
