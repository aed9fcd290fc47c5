package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify/proofs"
)

// A ledger written before block format 2 may hold a fork proof of format
// 1: two format-1 blocks of one validator at one height, which name no
// network and may be the validator's honest blocks on two networks.

// legacyForkStore writes such a store: Alice's chain of one format-1
// block, and the fork proof of it and another she signed at height 0. It
// returns the directory and the two blocks.
func legacyForkStore(t *testing.T) (string, []byte, []byte) {
	t.Helper()
	dir := ledgertest.UnboundStore(t)
	k := recordtest.Hotkey(t, "//Alice")
	sign := func(timeMS int64) []byte { return recordtest.BlockV1(t, k, timeMS) }
	b0, b1 := sign(1), sign(2)
	if _, err := ledgertest.LegacyChain(dir, b0); err != nil {
		t.Fatal(err)
	}
	if _, err := ledgertest.LegacyForkProof(dir, b0, b1); err != nil {
		t.Fatal(err)
	}
	return dir, b0, b1
}

// TestVerifyFormat1ForkProof: ledger verify checks the proof and counts
// it, and the audit is clean, of the store and of its archive; the proof
// was a failure of the store, and ledger export failed on it.
func TestVerifyFormat1ForkProof(t *testing.T) {
	t.Parallel()
	dir, _, _ := legacyForkStore(t)
	code, out, errs := ledgerRun(t, "verify", "--data", dir, "--no-reexec")
	if code != exitOK || !strings.Contains(out, "fork proofs of format 1 1: validly signed blocks at one height that name no network, so no evidence of equivocation") {
		t.Errorf("verify: exit %d, stdout %q, stderr %q; want a clean audit naming the format-1 proof", code, out, errs)
	}
	car := filepath.Join(t.TempDir(), "ledger.car")
	if code, out, errs := ledgerRun(t, "export", "--data", dir, "--out", car); code != exitOK {
		t.Fatalf("export: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	for _, src := range [][]string{{"--data", dir}, {"--car", car}} {
		code, out, errs := ledgerRun(t, append([]string{"verify", "--no-reexec", "--json"}, src...)...)
		var rep struct {
			OK                    bool `json:"ok"`
			ForkProofs            int  `json:"fork_proofs"`
			ForkProofsNotEvidence int  `json:"fork_proofs_not_evidence"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitOK || !rep.OK || rep.ForkProofs != 1 || rep.ForkProofsNotEvidence != 1 {
			t.Errorf("verify %s --json: exit %d, %+v (%v), stderr %q", src[0], code, rep, err, errs)
		}
	}
}

// TestVerifyProofFormat1BlocksAtOneHeight: the proof's two blocks, given
// to verify-proof as a consistency proof, are no consistency, and the
// check says they prove no equivocation either; it said the validator
// equivocated.
func TestVerifyProofFormat1BlocksAtOneHeight(t *testing.T) {
	t.Parallel()
	_, b0, b1 := legacyForkStore(t)
	raw, err := json.Marshal(&proofs.ConsistencyProof{Type: proofs.ConsistencyType, Older: b0, Newer: b1, Hashes: []record.Hash{}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := ledgerRun(t, "verify-proof", file)
	if code != exitCheckFail || !strings.Contains(errs, "of format 1: they name no network") || !strings.Contains(errs, "prove no equivocation") || strings.Contains(errs, "equivocated") {
		t.Errorf("verify-proof: exit %d, stdout %q, stderr %q; want exit 1 saying the blocks prove no equivocation", code, out, errs)
	}
}
