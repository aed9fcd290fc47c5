package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestCountsSayOne: export, import and verify say "1 chain", "1 block",
// "1 failure", not "1 chains": a ledger of one validator, one block and
// one transcript, then the same with the transcript damaged.
func TestCountsSayOne(t *testing.T) {
	t.Parallel()
	dir, _ := storeOf(t, &verifytest.Spec{Validators: 1, Blocks: 1, PerBlock: 1, Envs: []string{"mult8"}})
	car := filepath.Join(t.TempDir(), "one.car")
	const one = ": 1 chain, 1 block, 1 transcript, 0 decisions, 0 fork proofs"
	if code, out, errs := ledgerRun(t, "export", "--data", dir, "--out", car); code != 0 || !strings.Contains(out, "wrote "+car+one+", ") {
		t.Errorf("export: exit %d, %q %q; want it to say %q", code, out, errs, one)
	}
	if code, out, errs := ledgerRun(t, "import", "--data", t.TempDir(), "--car", car); code != 0 || out != "imported "+car+one+"\n" {
		t.Errorf("import: exit %d, %q %q; want it to say %q", code, out, errs, one)
	}
	if code, out, errs := ledgerRun(t, "verify", "--data", dir, "--no-reexec"); code != 0 || !strings.HasPrefix(out, "ok: 1 chain, 1 block, 1 transcript, ") {
		t.Errorf("verify: exit %d, %q %q", code, out, errs)
	}

	blk, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	b, err := blk.BlockAt(verifytest.Key(0).Public(), 0)
	blk.Close()
	if err != nil || len(b.Transcripts) != 1 {
		t.Fatalf("block 0: %v, %d transcripts", err, len(b.Transcripts))
	}
	c := b.Transcripts[0].Cid
	if err := ledgertest.OverwriteObject(dir, c, []byte{0xa0}); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := ledgerRun(t, "verify", "--data", dir, "--no-reexec"); code != 1 || !strings.HasPrefix(out, "FAILED: 1 chain, 1 block, ") || errs != "ledger: verify: 1 failure\n" {
		t.Errorf("verify of a damaged transcript: exit %d, %q %q; want \"verify: 1 failure\"", code, out, errs)
	}
}

// TestArchiveBytesSayWhatTheyCount: export --json "bytes" is the
// archive's length; import --json "bytes" is the records' bytes, as verify
// --car --json counts them; each command's help says which it is.
func TestArchiveBytesSayWhatTheyCount(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	car := filepath.Join(t.TempDir(), "ledger.car")
	var ex, im, ve struct {
		Bytes int64 `json:"bytes"`
	}
	runJSON := func(v any, args ...string) {
		t.Helper()
		code, out, errs := ledgerRun(t, args...)
		if err := json.Unmarshal([]byte(out), v); (code != 0 && args[0] != "verify") || err != nil {
			t.Fatalf("%v: exit %d, %v: %s %s", args, code, err, out, errs)
		}
	}
	runJSON(&ex, "export", "--data", dir, "--out", car, "--json")
	runJSON(&im, "import", "--data", t.TempDir(), "--car", car, "--json")
	runJSON(&ve, "verify", "--car", car, "--no-reexec", "--json")
	st, err := os.Stat(car)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Bytes != st.Size() {
		t.Errorf("export bytes %d, the archive has %d", ex.Bytes, st.Size())
	}
	if im.Bytes != ve.Bytes || im.Bytes >= ex.Bytes {
		t.Errorf("import bytes %d, verify --car bytes %d, export bytes %d: want import's = verify's < export's", im.Bytes, ve.Bytes, ex.Bytes)
	}
	for name, want := range map[string]string{"export": "bytes is the archive's length", "import": "bytes is the records' bytes loaded"} {
		if code, help := runStopped(t, name, "--help"); code != 0 || !strings.Contains(strings.Join(strings.Fields(help), " "), want) {
			t.Errorf("%s --help does not say %q:\n%s", name, want, help)
		}
	}
}
