package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
