package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestRegularSize: the progress bar's total is known for a file, also on
// standard input, and unknown for a pipe.
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

// TestArchiveNotOnTerminal: an archive is neither read from nor written
// to a terminal, where a user who forgot the pipe would see the command
// wait for input, or binary on the screen.
func TestArchiveNotOnTerminal(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	tty := openTerminal(t)
	// Were the terminal read, the read fails here instead of waiting.
	_ = tty.SetReadDeadline(time.Now().Add(5 * time.Second))
	if code, out, errs := ledgerRunIn(t, tty, "verify", "--car", "-"); code != 2 || !strings.Contains(errs, "standard input is a terminal") {
		t.Fatalf("verify --car - from a terminal: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	var errb bytes.Buffer
	if code := runIO([]string{"export", "--data", dir, "--out", "-"}, eofReader{}, tty, &errb); code != 2 || !strings.Contains(errb.String(), "standard output is a terminal") {
		t.Fatalf("export --out - to a terminal: exit %d, stderr %q", code, errb.String())
	}
}
