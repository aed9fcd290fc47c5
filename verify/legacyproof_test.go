package verify_test

import (
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/verify"
)

// legacyBlock0 returns the encoded block of k at height 0 in dir, and
// another format-1 block of k at height 0, validly signed.
func legacyBlock0(t *testing.T, dir string, k *keys.Hotkey) (stored, other []byte) {
	t.Helper()
	s, err := verify.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b0, err := s.BlockAt(k.Public(), 0)
	if err != nil {
		t.Fatal(err)
	}
	raw0, err := s.Object(b0.CID)
	if err != nil {
		t.Fatal(err)
	}
	h := b0.Header
	h.TimeMS++
	_, other, _, err = record.Sign(h, k)
	if err != nil {
		t.Fatal(err)
	}
	return raw0, other
}

// TestFormat1ForkProofFailsNoOne: a store written before block format 2
// may hold a fork proof of format 1, whose blocks name no network and may
// be an honest validator's blocks on two networks. It verifies, is
// counted, and fails neither the validator nor the source
// (spec/verify.md); it was a failure of the source, as unreadable.
func TestFormat1ForkProofFailsNoOne(t *testing.T) {
	t.Parallel()
	dir, ks := legacyLedger(t)
	k := ks[0]
	stored, other := legacyBlock0(t, dir, k)
	if _, err := ledgertest.LegacyForkProof(dir, stored, other); err != nil {
		t.Fatal(err)
	}
	for _, scope := range []verify.StoreScope{{}, {Validator: new(k.Public())}} {
		rep := audit(t, dir, scope, verify.Options{})
		if !rep.OK || len(rep.Failures) != 0 || rep.ForkProofs != 1 || rep.ForkProofsNotEvidence != 1 {
			t.Errorf("scope %+v: want a clean audit counting one fork proof, of no evidence: %+v", scope, rep)
		}
	}
	// The store's archive holds it too (its export failed on it), and
	// the archive's audit is as clean (it panicked, expecting a failure).
	if rep := verifyCAR(t, exportDir(t, dir), verify.Options{}); !rep.OK || rep.ForkProofs != 1 || rep.ForkProofsNotEvidence != 1 {
		t.Errorf("archive: want a clean audit counting one fork proof, of no evidence: %+v", rep)
	}
}

// TestBadFormat1ForkProofIsTheSources: a stored record of format 1 that
// does not verify as a fork proof (blocks of two validators here) is a
// failure of the source that kept it, not of the validator it names.
func TestBadFormat1ForkProofIsTheSources(t *testing.T) {
	t.Parallel()
	dir, ks := legacyLedger(t)
	a, _ := legacyBlock0(t, dir, ks[0])
	b, _ := legacyBlock0(t, dir, ks[1])
	pc, err := ledgertest.LegacyForkProof(dir, a, b)
	if err != nil {
		t.Fatal(err)
	}
	rep := audit(t, dir, verify.StoreScope{}, verify.Options{})
	if rep.OK || len(rep.Failures) != 1 || rep.ForkProofsNotEvidence != 0 {
		t.Fatalf("want the record reported, got %+v", rep)
	}
	if f := rep.Failures[0]; f.Validator != "" || f.CID != pc.String() || !strings.Contains(f.Reason, "proof names") {
		t.Errorf("failure %+v, want one of the source naming record %s and the validators", f, pc)
	}
}
