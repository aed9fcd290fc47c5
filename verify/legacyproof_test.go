package verify_test

import (
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/verify"
)

// TestWithdrawnForkProofIsTheSources: a store written before block format
// 2 may hold a fork proof of format 1, withdrawn since: its blocks name no
// network, and may be an honest validator's blocks on two networks. Like
// any record that does not verify as a fork proof, it is a failure of the
// source that kept it, not of the validator it names (spec/verify.md);
// it was reported as the validator's.
func TestWithdrawnForkProofIsTheSources(t *testing.T) {
	t.Parallel()
	dir, ks := legacyLedger(t)
	k := ks[0]
	s, err := verify.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	b0, err := s.BlockAt(k.Public(), 0)
	if err != nil {
		t.Fatal(err)
	}
	raw0, err := s.Object(b0.CID)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	h := b0.Header
	h.TimeMS++
	_, other, _, err := record.Sign(h, k)
	if err != nil {
		t.Fatal(err)
	}
	pc, err := ledgertest.LegacyForkProof(dir, raw0, other)
	if err != nil {
		t.Fatal(err)
	}
	for _, scope := range []verify.StoreScope{{}, {Validator: new(k.Public())}} {
		rep := audit(t, dir, scope, verify.Options{})
		if rep.OK || len(rep.Failures) != 1 {
			t.Fatalf("scope %+v: want the withdrawn proof reported, got %+v", scope, rep)
		}
		if f := rep.Failures[0]; f.Validator != "" || f.CID != pc.String() || !strings.Contains(f.Reason, "withdrawn") {
			t.Errorf("scope %+v: failure %+v, want one of the source naming proof %s as withdrawn", scope, f, pc)
		}
	}
}
