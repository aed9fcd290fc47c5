package verify_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/affine-ledger/ledger/archive"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// appendChain appends blocks of perBlock mult8 transcripts for k, each
// block drawn at its own anchor; mutate may change transcript i of block b
// and decisions gives block b's decisions.
func appendChain(t *testing.T, s *ledger.Store, k *keys.Hotkey, blocks, perBlock int, mutate func(b, i int, tr *record.Transcript), decisions func(b int) [][]byte) {
	t.Helper()
	a, err := s.NewAppender(k)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for b := 0; b < blocks; b++ {
		anchor := verifytest.BlockAnchor(b)
		var ts []record.Transcript
		for i := 0; i < perBlock; i++ {
			tr, err := verifytest.Transcript(k.Public(), anchor, "mult8", uint64(i), n, 0)
			if err != nil {
				t.Fatal(err)
			}
			n++
			if mutate != nil {
				mutate(b, i, &tr)
			}
			ts = append(ts, tr)
		}
		var ds [][]byte
		if decisions != nil {
			ds = decisions(b)
		}
		if _, err := a.Append(context.Background(), anchor, ts, ds); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestVerifyCARDecisionShapedLikeABlock: validator lo signs a block whose
// first transcript lies about its reward (the store takes it: it does not
// re-execute) and whose decision is validator hi's genesis block, byte for
// byte (a decision is any DAG-CBOR). The store audit blames lo alone. The
// archive audit of an honest export of the same store must agree: after
// lo's block fails, the reader skips the sections the block links, the
// decision among them, and hi's chain starts at hi's real genesis. (Read
// by its shape, the decision would start hi's chain, fail it for objects
// "not in the archive", and hide hi's real chain in that failed chain.)
func TestVerifyCARDecisionShapedLikeABlock(t *testing.T) {
	t.Parallel()
	lo, hi := verifytest.Key(0), verifytest.Key(1)
	if lp, hp := lo.Public(), hi.Public(); bytes.Compare(lp[:], hp[:]) > 0 {
		lo, hi = hi, lo
	}
	dir := t.TempDir()
	s := open(t, dir)
	appendChain(t, s, hi, 3, 2, nil, nil)
	hi0, err := s.BlockAt(hi.Public(), 0)
	if err != nil {
		t.Fatal(err)
	}
	appendChain(t, s, lo, 2, 2, wrongFirstReward, decisionInFirst(hi0.Raw))
	opts := func() verify.Options { return verify.Options{Reexecute: true, Challenges: verify.NewMemSet()} }
	heads, err := verify.StoreHeads(s, verify.StoreScope{})
	if err != nil {
		t.Fatal(err)
	}
	srep, err := verify.VerifyStore(s, heads, verify.StoreScope{}, opts())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := archive.Export(s, &buf); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if len(srep.Failures) != 1 || srep.Failures[0].Validator != lo.Public().String() {
		t.Fatalf("store audit: want lo's failure only: %v", srep.Failures)
	}
	crep, err := verify.VerifyCAR(bytes.NewReader(buf.Bytes()), opts())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range crep.Failures {
		if f.Validator == hi.Public().String() {
			t.Errorf("archive audit blames honest validator %s: %v", hi.Public(), f)
		}
	}
	if crep.Blocks < srep.Blocks {
		t.Errorf("archive audit checked %d blocks, the store audit %d: a chain went unverified", crep.Blocks, srep.Blocks)
	}
	if t.Failed() {
		for _, f := range crep.Failures {
			t.Logf("archive failure: %v", f)
		}
	}
}

// TestVerifyCARDecisionShapedLikeAForkProof: as above, but lo's decision
// is a (valid, public) fork proof of a third validator. Read by its shape,
// it would end the chains: the next block would be refused as "after the
// fork proofs" and the other chains neither verified nor counted.
func TestVerifyCARDecisionShapedLikeAForkProof(t *testing.T) {
	t.Parallel()
	lo, hi := verifytest.Key(0), verifytest.Key(1)
	if lp, hp := lo.Public(), hi.Public(); bytes.Compare(lp[:], hp[:]) > 0 {
		lo, hi = hi, lo
	}
	other := verifytest.Key(2)
	dir := t.TempDir()
	s := open(t, dir)
	appendChain(t, s, other, 2, 1, nil, nil)
	pc, err := verifytest.Equivocate(s, other, 1)
	if err != nil {
		t.Fatal(err)
	}
	proof, err := s.Object(pc)
	if err != nil {
		t.Fatal(err)
	}
	appendChain(t, s, hi, 3, 2, nil, nil)
	appendChain(t, s, lo, 2, 2, wrongFirstReward, decisionInFirst(proof))
	rep := exportAndAudit(t, s)
	if rep.Chains != 3 {
		t.Errorf("archive audit went through %d chains of 3 (%d blocks): %v", rep.Chains, rep.Blocks, rep.Failures)
	}
}

// TestVerifyCARLastBlockDecisionIsTheNextGenesis: lo's only block fails
// and links hi's genesis block as a decision, so the export holds hi's
// genesis twice in a row: the decision, then the block that starts hi's
// chain. Skipping what lo's block links takes one section per link, not
// every section under a linked CID: hi's chain is read and verifies.
func TestVerifyCARLastBlockDecisionIsTheNextGenesis(t *testing.T) {
	t.Parallel()
	lo, hi := verifytest.Key(0), verifytest.Key(1)
	if lp, hp := lo.Public(), hi.Public(); bytes.Compare(lp[:], hp[:]) > 0 {
		lo, hi = hi, lo
	}
	s := open(t, t.TempDir())
	appendChain(t, s, hi, 2, 1, nil, nil)
	hi0, err := s.BlockAt(hi.Public(), 0)
	if err != nil {
		t.Fatal(err)
	}
	appendChain(t, s, lo, 1, 2, func(b, i int, tr *record.Transcript) {
		if i == 1 {
			tr.Reward++
			tr.TurnRewards[len(tr.TurnRewards)-1]++
		}
	}, func(int) [][]byte { return [][]byte{hi0.Raw} })
	rep := exportAndAudit(t, s)
	if len(rep.Failures) != 1 || rep.Failures[0].Validator != lo.Public().String() || rep.Failures[0].Transcript != 1 {
		t.Errorf("want lo's transcript 1 alone: %v", rep.Failures)
	}
	if rep.Chains != 2 || rep.Blocks != 3 {
		t.Errorf("%d chains and %d blocks checked, want 2 and 3", rep.Chains, rep.Blocks)
	}
}

// exportAndAudit exports s, closes it, and verifies the archive with
// re-execution.
func exportAndAudit(t *testing.T, s *ledger.Store) verify.Report {
	t.Helper()
	var buf bytes.Buffer
	if _, err := archive.Export(s, &buf); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	rep, err := verify.VerifyCAR(bytes.NewReader(buf.Bytes()), verify.Options{Reexecute: true, Challenges: verify.NewMemSet()})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// wrongFirstReward makes the first transcript of block 0 fail re-execution.
func wrongFirstReward(b, i int, tr *record.Transcript) {
	if b == 0 && i == 0 {
		tr.Reward++
		tr.TurnRewards[len(tr.TurnRewards)-1]++
	}
}

// decisionInFirst links raw as a decision of block 0 only.
func decisionInFirst(raw []byte) func(int) [][]byte {
	return func(b int) [][]byte {
		if b == 0 {
			return [][]byte{raw}
		}
		return nil
	}
}
