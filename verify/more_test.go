package verify_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

func TestForkProofIsAFinding(t *testing.T) {
	t.Parallel()
	dir, ks := build(t, small)
	s := open(t, dir)
	proof, err := verifytest.Equivocate(s, ks[1], 1)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	rep := verifyDir(t, dir, verify.StoreScope{})
	if rep.OK || rep.ForkProofs != 1 || len(rep.Failures) != 1 {
		t.Fatalf("want one fork proof finding: %+v", rep)
	}
	f := rep.Failures[0]
	if f.Validator != ks[1].Public().String() || f.Height != 1 || f.Transcript != -1 || f.CID != proof.String() || !strings.Contains(f.Reason, "equivocation") {
		t.Fatalf("finding %+v", f)
	}
}

func TestFromHeightAndValidator(t *testing.T) {
	t.Parallel()
	dir, ks := build(t, small)
	v := ks[1].Public()
	rep := verifyDir(t, dir, verify.StoreScope{Validator: &v, From: 2})
	if !rep.OK || rep.Chains != 1 || rep.Blocks != 1 || rep.Transcripts != small.PerBlock {
		t.Fatalf("from height 2 of one chain: %+v", rep)
	}
	// A tampered transcript below From is not looked at; one at From is.
	blk, ts := stored(t, dir, ks[1], 1)
	if err := ledgertest.OverwriteObject(dir, blk.Transcripts[0].Cid, append(ts[0], 0)); err != nil {
		t.Fatal(err)
	}
	if rep := verifyDir(t, dir, verify.StoreScope{Validator: &v, From: 2}); !rep.OK {
		t.Fatalf("tamper below --from: %+v", rep.Failures)
	}
	onlyFailure(t, verifyDir(t, dir, verify.StoreScope{Validator: &v, From: 1}), ks[1], 1, blk.CID, 0, "do not match")
}

// TestDuplicateChallenge feeds the core a chain (signed, consistent) whose
// second block reuses a challenge of the first: the store refuses to hold
// one, so the core is driven directly.
func TestDuplicateChallenge(t *testing.T) {
	t.Parallel()
	k := verifytest.Key(7)
	v := k.Public()
	a := recordtest.Anchor(1)
	t0, err := verifytest.Transcript(v, a, "mult8", 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The champion and the contender of a duel both answer t0's
	// challenge; a third run for the champion is one too many.
	tB := t0
	tB.Miner.Hotkey = verifytest.Miner(9)
	tB.Invocation[15] ^= 2
	t1 := t0
	t1.Invocation[15] ^= 1 // same challenge, same miner, another run
	objs := map[cid.Cid][]byte{}
	var leaves []cid.Cid
	var prev cid.Cid
	var blocks [][]byte
	var cids []cid.Cid
	for h, tr := range []record.Transcript{t0, tB, t1} {
		raw, c, err := tr.Encode()
		if err != nil {
			t.Fatal(err)
		}
		objs[c] = raw
		leaves = append(leaves, c)
		hd := record.Header{Format: record.BlockFormat, Net: recordtest.Network, Validator: v, Height: uint64(h), TimeMS: 1, Anchor: a,
			Transcripts: []codec.Link{codec.LinkTo(c)}, Checkpoint: record.CheckpointOf(leaves)}
		if h > 0 {
			hd.Prev = codec.LinkTo(prev)
		}
		_, braw, bc, err := record.Sign(hd, k)
		if err != nil {
			t.Fatal(err)
		}
		blocks, cids, prev = append(blocks, braw), append(cids, bc), bc
	}
	vf := verify.New(verify.Options{Reexecute: true, Challenges: verify.NewMemSet()})
	if err := vf.StartChain(v, verify.Genesis()); err != nil {
		t.Fatal(err)
	}
	fetch := func(c cid.Cid) ([]byte, error) { return objs[c], nil }
	for i := range blocks {
		vf.Block(blocks[i], cids[i], fetch)
	}
	rep := vf.Report()
	onlyFailure(t, rep, k, 2, cids[2], 0, "was put to miner")
	if rep.SeedsExact != 2 {
		t.Fatalf("seeds exact %d: the pair's shared seed must pass twice", rep.SeedsExact)
	}
}

func TestDiskSet(t *testing.T) {
	t.Parallel()
	set, err := verify.NewDiskSet(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	k := verifytest.Key(1).Public()
	tr, err := verifytest.Transcript(k, recordtest.Anchor(1), "mult8", 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := tr.Miner.Hotkey
	if _, dup, err := set.Add(k, m, tr.Challenge, verify.Location{Height: 3, Index: 4}); err != nil || dup {
		t.Fatalf("first add: dup %v err %v", dup, err)
	}
	if _, dup, _ := set.Add(keys.PublicKey{1}, m, tr.Challenge, verify.Location{}); dup {
		t.Fatal("another validator's use counted as a duplicate")
	}
	if _, dup, _ := set.Add(k, keys.PublicKey{2}, tr.Challenge, verify.Location{}); dup {
		t.Fatal("the same challenge put to another miner counted as a duplicate")
	}
	first, dup, err := set.Add(k, m, tr.Challenge, verify.Location{Height: 9})
	if err != nil || !dup || first != (verify.Location{Height: 3, Index: 4}) {
		t.Fatalf("second add: %+v %v %v", first, dup, err)
	}
}

// TestUnreadableForkProofHidesNoOther: a fork proof the store cannot read
// is a failure of its own, and the proofs after it are still verified and
// reported; the audit stopped at the first, so a later validator's
// equivocation went unreported (and, under --validator, a proof of
// another validator that could not be read failed the audit).
func TestUnreadableForkProofHidesNoOther(t *testing.T) {
	t.Parallel()
	dir, ks := build(t, small)
	s := open(t, dir)
	var proofs []cid.Cid
	for _, k := range ks[:2] {
		p, err := verifytest.Equivocate(s, k, 1)
		if err != nil {
			t.Fatal(err)
		}
		proofs = append(proofs, p)
	}
	s.Close()
	// The store lists proofs by validator: damage the first listed.
	first, second := 0, 1
	if v0, v1 := ks[0].Public(), ks[1].Public(); bytes.Compare(v1[:], v0[:]) < 0 {
		first, second = 1, 0
	}
	if err := ledgertest.OverwriteObject(dir, proofs[first], []byte{0xa0}); err != nil {
		t.Fatal(err)
	}
	rep := verifyDir(t, dir, verify.StoreScope{})
	if rep.ForkProofs != 1 || len(rep.Failures) != 2 {
		t.Fatalf("want the damaged proof and the other one reported: %+v", rep)
	}
	var sawOther, sawDamaged bool
	for _, f := range rep.Failures {
		if f.CID == proofs[second].String() && strings.Contains(f.Reason, "equivocation") {
			sawOther = true
		}
		if f.CID == proofs[first].String() {
			sawDamaged = true
			if f.Validator != ks[first].Public().String() || f.Height != 1 || f.Transcript != -1 || !strings.HasPrefix(f.Reason, "fork proof: ") {
				t.Errorf("the damaged proof's failure %v, want it of %s at height 1, of no transcript", f, ks[first].Public())
			}
		}
	}
	if !sawDamaged {
		t.Fatalf("the damaged proof is not reported: %+v", rep.Failures)
	}
	if !sawOther {
		t.Fatalf("the intact proof of %s is not reported: %+v", ks[second].Public(), rep.Failures)
	}
	// Scoped to the intact proof's validator, the damaged one is not its.
	v := ks[second].Public()
	if rep := verifyDir(t, dir, verify.StoreScope{Validator: &v}); rep.ForkProofs != 1 || len(rep.Failures) != 1 {
		t.Fatalf("--validator %s: %+v", v, rep)
	}
}

// TestStoreHeads: the chains an audit covers, every one or the scope's
// validator's; a validator the store has no chain of is an error the
// command reports as bad usage, while an empty store has no chains to
// audit.
func TestStoreHeads(t *testing.T) {
	t.Parallel()
	dir, ks := build(t, small)
	s := open(t, dir)
	defer s.Close()
	all, err := verify.StoreHeads(s, verify.StoreScope{})
	if err != nil || len(all) != 2 || bytes.Compare(all[0].Validator[:], all[1].Validator[:]) >= 0 {
		t.Fatalf("every chain: %v, %v; want 2 heads in validator order", all, err)
	}
	v := ks[1].Public()
	one, err := verify.StoreHeads(s, verify.StoreScope{Validator: &v})
	if err != nil || len(one) != 1 || one[0].Validator != v || one[0].Height != uint64(small.Blocks-1) {
		t.Fatalf("validator %s: %v, %v; want its head at height %d", v, one, err, small.Blocks-1)
	}
	stranger := verifytest.Key(9).Public()
	if heads, err := verify.StoreHeads(s, verify.StoreScope{Validator: &stranger}); !errors.Is(err, ledger.ErrNotFound) || !strings.Contains(err.Error(), stranger.String()) {
		t.Fatalf("validator %s, of no chain: %v, %v; want ErrNotFound naming it", stranger, heads, err)
	}
	empty := open(t, t.TempDir())
	defer empty.Close()
	if heads, err := verify.StoreHeads(empty, verify.StoreScope{}); err != nil || len(heads) != 0 {
		t.Fatalf("an empty store: %v, %v; want no heads", heads, err)
	}
}

// TestMissingBlockIsNamedByItsLink: a block the store's height index
// names but whose bytes it lacks is the store's loss at that height; the
// failure names the block by the CID the next block links, the one the
// chain says belongs there.
func TestMissingBlockIsNamedByItsLink(t *testing.T) {
	t.Parallel()
	dir, ks := build(t, verifytest.Spec{Validators: 1, Blocks: 3, PerBlock: 2, Envs: []string{"mult8"}})
	k := ks[0]
	v := k.Public()
	b1, _ := stored(t, dir, k, 1)
	if err := ledgertest.Delete(dir, ledgertest.ObjectKey(b1.CID)); err != nil {
		t.Fatal(err)
	}
	for _, from := range []uint64{0, 1} {
		onlyFailure(t, verifyDir(t, dir, verify.StoreScope{Validator: &v, From: from}), k, 1, b1.CID, -1, "read block")
	}
}
