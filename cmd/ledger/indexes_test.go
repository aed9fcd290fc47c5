package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestDamagedMinerIndexFailsVerify: a miner's entry for one of its
// transcripts is deleted behind the store's back, so `ledger transcripts`
// no longer lists that transcript. The signed chains are intact; verify
// must still fail (exit 1), naming the entry as the store's damage.
func TestDamagedMinerIndexFailsVerify(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	v, m := verifytest.Key(0).Public(), verifytest.Miner(1)
	count := func() int {
		t.Helper()
		code, out, errs := ledgerRun(t, "transcripts", "--data", dir, "--miner", m.String(), "--json")
		if code != 0 {
			t.Fatalf("transcripts: exit %d, %s", code, errs)
		}
		var rows []json.RawMessage
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatalf("transcripts --json: %v: %s", err, out)
		}
		return len(rows)
	}
	before := count()
	s, err := ledger.OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	var leaf uint64
	found := false
	for ref, err := range s.TranscriptsByMiner(m) {
		if err != nil {
			t.Fatal(err)
		}
		if ref.Validator == v {
			leaf, found = ref.Leaf, true
			break
		}
	}
	s.Close()
	if !found {
		t.Fatalf("validator 0 put nothing to miner %s", m)
	}
	if err := ledgertest.Delete(dir, ledgertest.MinerKey(m, v, leaf)); err != nil {
		t.Fatal(err)
	}
	if after := count(); after != before-1 {
		t.Fatalf("transcripts lists %d, want %d: the damage must hide one", after, before-1)
	}
	code, out, errs := ledgerRun(t, "verify", "--data", dir, "--no-reexec")
	want := "store has no miner index's entry for miner " + m.String()
	if code != exitCheckFail || !strings.Contains(out, "FAIL ledger: store damage: ") || !strings.Contains(out, want) {
		t.Fatalf("verify: exit %d, %s %s; want exit 1 saying the %s", code, out, errs, want)
	}
}
