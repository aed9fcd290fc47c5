package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestVerifyProofJSONNamesZeroes: spec/proofs.md has verify-proof --json
// print in "proves" the transcript's leaf (inclusion) and the older
// block's height (consistency). Both are tagged omitempty, so leaf 0 and
// height 0, the first transcript and the genesis checkpoint, vanish from
// the output: a reader cannot tell them from a missing member.
func TestVerifyProofJSONNamesZeroes(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	code, out, errs := ledgerRun(t, "transcripts", "--data", dir, "--miner", verifytest.Miner(0).String(), "--json")
	if code != 0 {
		t.Fatalf("transcripts: %d %s %s", code, out, errs)
	}
	var rows []struct {
		Transcript string `json:"transcript"`
		Leaf       uint64 `json:"leaf"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	first := ""
	for _, r := range rows {
		if r.Leaf == 0 {
			first = r.Transcript
		}
	}
	if first == "" {
		t.Fatalf("no transcript at leaf 0 for miner 0: %s", out)
	}
	incl := filepath.Join(t.TempDir(), "p.json")
	if code, out, errs := ledgerRun(t, "prove", "--data", dir, "--transcript", first, "--out", incl); code != 0 {
		t.Fatalf("prove: %d %s %s", code, out, errs)
	}
	cons := filepath.Join(t.TempDir(), "c.json")
	v := verifytest.Key(0).Public().String()
	if code, out, errs := ledgerRun(t, "consistency", "--data", dir, "--validator", v, "--from", "0", "--to", "2", "--out", cons); code != 0 {
		t.Fatalf("consistency: %d %s %s", code, out, errs)
	}
	for _, tc := range []struct{ file, member string }{{incl, "leaf"}, {cons, "older_height"}} {
		code, out, _ := ledgerRun(t, "verify-proof", "--json", tc.file)
		var res struct {
			OK     bool           `json:"ok"`
			Proves map[string]any `json:"proves"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || !res.OK {
			t.Fatalf("verify-proof %s: %d %s", tc.file, code, out)
		}
		if _, ok := res.Proves[tc.member]; !ok {
			t.Errorf("verify-proof --json of a proof whose %s is 0 prints no %q: %s", tc.member, tc.member, out)
		}
	}
}

// TestVerifyProofArgs: verify-proof takes one FILE; without it, or with
// more, the error says so, not cobra's "accepts 1 arg(s), received 0".
func TestVerifyProofArgs(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"verify-proof"}, {"verify-proof", "a.json", "b.json"}} {
		code, _, errs := ledgerRun(t, args...)
		if code != exitUsage || !strings.Contains(errs, "one proof FILE") || strings.Contains(errs, "arg(s)") {
			t.Errorf("%v: exit %d, %q; want exit 2 asking for one proof FILE", args, code, errs)
		}
	}
}

// TestProofOutPaths: prove's and consistency's --out is checked as
// export's is: a directory or a path in a missing directory is bad usage
// naming --out and the path given, not the temporary file the proof is
// written to first (".proof-*"), and it leaves no file behind; "-" is
// standard output, as it is for export, not a file named "-".
func TestProofOutPaths(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	rows := minerRows(t, dir, verifytest.Miner(1).String())
	v := verifytest.Key(0).Public().String()
	commands := map[string][]string{
		"prove":       {"prove", "--data", dir, "--transcript", rows[0].Transcript},
		"consistency": {"consistency", "--data", dir, "--validator", v, "--from", "0", "--to", "1"},
	}
	for name, args := range commands {
		tmp := t.TempDir()
		for _, tc := range []struct{ out, want string }{
			{tmp, "is a directory"},
			{filepath.Join(tmp, "missing", "p.json"), "no such file or directory"},
		} {
			code, out, errs := ledgerRun(t, append(args, "--out", tc.out)...)
			if code != exitUsage || out != "" || !strings.Contains(errs, "--out "+tc.out+": ") ||
				!strings.Contains(errs, tc.want) || strings.Contains(errs, ".proof-") {
				t.Errorf("%s --out %s: exit %d, stdout %q, stderr %q; want exit 2 naming --out and %q", name, tc.out, code, out, errs, tc.want)
			}
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("%s: files left in %s: %v", name, tmp, left)
		}
	}
	// "-" is standard output, whatever the working directory.
	for name, args := range commands {
		code, out, errs := ledgerRun(t, append(args, "--out", "-")...)
		if code != 0 || !strings.HasPrefix(out, "{") {
			t.Errorf("%s --out -: exit %d, stdout %.40q, stderr %q; want the proof on standard output", name, code, out, errs)
		}
		if _, err := os.Stat("-"); err == nil {
			os.Remove("-")
			t.Errorf("%s --out - wrote a file named \"-\"", name)
		}
	}
}

// TestVerifyProofStdin: "verify-proof -" reads the proof from a pipe or a
// redirection; from a terminal it waited, silently, for a proof to be
// typed. There it is bad usage saying to pipe or name a file.
func TestVerifyProofStdin(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	proof := filepath.Join(t.TempDir(), "c.json")
	v := verifytest.Key(0).Public().String()
	if code, out, errs := ledgerRun(t, "consistency", "--data", dir, "--validator", v, "--from", "0", "--to", "2", "--out", proof); code != 0 {
		t.Fatalf("consistency: %d %s %s", code, out, errs)
	}
	data, err := os.ReadFile(proof)
	if err != nil {
		t.Fatal(err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	go func() {
		pw.Write(data)
		pw.Close()
	}()
	if code, out, errs := ledgerRunIn(t, pr, "verify-proof", "-"); code != 0 || !strings.HasPrefix(out, "ok: ") {
		t.Errorf("verify-proof - from a pipe: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	f, err := os.Open(proof)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if code, out, errs := ledgerRunIn(t, f, "verify-proof", "-"); code != 0 || !strings.HasPrefix(out, "ok: ") {
		t.Errorf("verify-proof - < file: exit %d, stdout %q, stderr %q", code, out, errs)
	}

	tty := openTerminal(t)
	// Were the terminal read, the read fails here instead of waiting.
	_ = tty.SetReadDeadline(time.Now().Add(5 * time.Second))
	code, out, errs := ledgerRunIn(t, tty, "verify-proof", "-")
	if code != exitUsage || out != "" || !strings.Contains(errs, "standard input is a terminal") || !strings.Contains(errs, "pipe") {
		t.Errorf("verify-proof - from a terminal: exit %d, stdout %q, stderr %q; want exit 2 saying to pipe or name a file", code, out, errs)
	}
}

// TestProveCIDText: --transcript and --fork take a CID in its canonical
// text only. Text that is no CID is refused naming the flag, saying "not
// a CID" once (go-cid says "invalid cid: " twice); another text of a
// stored transcript's CID (its last digit's unused bits set, upper case)
// is refused naming the canonical text, not proved as if it were it.
func TestProveCIDText(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	canon := minerRows(t, dir, verifytest.Miner(1).String())[0].Transcript
	bumped := canon[:len(canon)-1] + string(canon[len(canon)-1]+1)
	for _, tc := range []struct {
		flag, value, want string
	}{
		{"--transcript", "bogus", `--transcript: "bogus" is not a CID: expected 1 as the cid version number, got: 113`},
		{"--fork", "bogus", `--fork: "bogus" is not a CID`},
		{"--transcript", bumped, "is not the canonical text of its CID, " + canon},
		{"--transcript", strings.ToUpper(canon), "is not the canonical text of its CID, " + canon},
	} {
		code, out, errs := ledgerRun(t, "prove", "--data", dir, tc.flag, tc.value)
		if code != exitUsage || out != "" || !strings.Contains(errs, tc.want) || strings.Contains(errs, "invalid cid") {
			t.Errorf("prove %s %s: exit %d, %d bytes of stdout, stderr %q; want 2 saying %q", tc.flag, tc.value, code, len(out), errs, tc.want)
		}
	}
	if code, _, errs := ledgerRun(t, "prove", "--data", dir, "--transcript", canon); code != 0 {
		t.Errorf("prove --transcript %s: exit %d: %s", canon, code, errs)
	}
}
