package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ledgerRunIn is ledgerRun with stdin as the command's standard input.
func ledgerRunIn(t *testing.T, stdin *os.File, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runIO(args, stdin, &out, &errb)
	return code, out.String(), errb.String()
}

// TestArchiveThroughPipe runs export --out - into an OS pipe and
// verify --car - out of it at the same time, as a shell pipeline does.
func TestArchiveThroughPipe(t *testing.T) {
	t.Parallel()
	dir, spec := builtLedger(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	type result struct {
		code int
		errs string
	}
	exported := make(chan result, 1)
	go func() {
		var errb bytes.Buffer
		code := runIO([]string{"export", "--data", dir, "--out", "-"}, eofReader{}, pw, &errb)
		pw.Close()
		exported <- result{code, errb.String()}
	}()
	code, out, errs := ledgerRunIn(t, pr, "verify", "--car", "-", "--json")
	ex := <-exported
	if ex.code != 0 || !strings.Contains(ex.errs, "wrote standard output: 2 chains, 6 blocks") {
		t.Fatalf("export --out -: exit %d, stderr %q", ex.code, ex.errs)
	}
	if code != 0 {
		t.Fatalf("verify --car -: exit %d %s %s", code, out, errs)
	}
	var rep struct {
		OK          bool `json:"ok"`
		Blocks      int  `json:"blocks"`
		Transcripts int  `json:"transcripts"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("verify --json: %v: %s", err, out)
	}
	want := spec.Validators * spec.Blocks
	if !rep.OK || rep.Blocks != want || rep.Transcripts != want*spec.PerBlock {
		t.Fatalf("verify --car -: %+v, want %d blocks and %d transcripts", rep, want, want*spec.PerBlock)
	}
}

// TestExportToStdoutUsage: --json would mix the counts into the archive.
func TestExportToStdoutUsage(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	code, out, errs := ledgerRun(t, "export", "--data", dir, "--out", "-", "--json")
	if code != 2 || out != "" || !strings.Contains(errs, "--json") {
		t.Fatalf("export --out - --json: exit %d, stdout %d bytes, stderr %q", code, len(out), errs)
	}
}

func TestRegularSize(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 1234), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	for _, c := range []struct {
		name string
		r    io.Reader
		want int64
	}{
		{"regular file", f, 1234},
		{"pipe", pr, -1},
		{"in memory", bytes.NewReader(nil), -1},
	} {
		if got := regularSize(c.r); got != c.want {
			t.Errorf("%s: regularSize %d, want %d", c.name, got, c.want)
		}
	}
}
