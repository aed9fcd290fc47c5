package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestExportOutErrorsNameOut: an --out that cannot be written is bad usage
// naming the path given, not the temporary file the archive is written to
// first (".export-*.car"), and it is found before the ledger is read.
func TestExportOutErrorsNameOut(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	tmp := t.TempDir()
	for _, tc := range []struct{ out, want string }{
		{tmp, "is a directory"},
		{filepath.Join(tmp, "missing", "x.car"), "no such file or directory"},
	} {
		code, out, errs := ledgerRun(t, "export", "--data", dir, "--out", tc.out)
		if code != exitUsage || out != "" || !strings.Contains(errs, "--out "+tc.out+": ") ||
			!strings.Contains(errs, tc.want) || strings.Contains(errs, ".export-") {
			t.Errorf("export --out %s: exit %d, stdout %q, stderr %q; want exit 2 naming --out and %q", tc.out, code, out, errs, tc.want)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("files left in %s: %v", tmp, left)
	}
}

// TestExportRefusesDamage: a transcript whose stored bytes do not hash to
// its CID (another record's bytes under its key) fails the export, exit 1,
// naming the object, its validator and height, and writes no archive:
// --out keeps its old file, and nothing is left beside it.
func TestExportRefusesDamage(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	rows := minerRows(t, dir, verifytest.Miner(1).String())
	bad := rows[len(rows)-1]
	c, raw := swapTranscriptBytes(t, dir, bad, rows[0])
	outDir := t.TempDir()
	car := filepath.Join(outDir, "ledger.car")
	old := []byte("an older archive\n")
	if err := os.WriteFile(car, old, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{car, "-"} {
		code, stdout, errs := ledgerRun(t, "export", "--data", dir, "--out", out)
		if code != exitCheckFail {
			t.Errorf("--out %s: exit %d, want 1: %s", out, code, errs)
		}
		for _, want := range []string{bad.Transcript, bad.Validator.Short(), fmt.Sprintf("height %d", bad.Height)} {
			if !strings.Contains(errs, want) {
				t.Errorf("--out %s: stderr does not name %s: %q", out, want, errs)
			}
		}
		if section := string(c.Bytes()) + string(raw); out == "-" && strings.Contains(stdout, section) {
			t.Errorf("--out -: the damaged section was written")
		}
	}
	if got, _ := os.ReadFile(car); string(got) != string(old) {
		t.Errorf("a failed export changed the file at --out: %d bytes", len(got))
	}
	onlyFiles(t, outDir, "ledger.car")
}
