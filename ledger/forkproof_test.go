package ledger_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/ledger/record"
)

// TestForkProofByCID: Store.ForkProof finds each listed proof by its CID
// as ForkProofs reads it, calls another record's CID not found, and one
// whose stored bytes were damaged unreadable, naming it.
func TestForkProofByCID(t *testing.T) {
	t.Parallel()
	p := &peerChain{t: t, key: alice(t)}
	b0 := p.build(1, nil)
	p.accept(b0)
	first := p.build(1, nil)
	second := p.build(1, func(h *record.Header, _ map[cid.Cid][]byte) { h.TimeMS += 7 })
	p2 := &peerChain{t: t, key: p.key}
	alt0 := p2.build(2, nil)

	dir := t.TempDir()
	s := open(t, dir)
	for _, b := range []peerBlock{b0, first, second, alt0} {
		if _, err := s.Put(b.raw, b.objs); err != nil && !errors.Is(err, ledger.ErrEquivocation) {
			t.Fatal(err)
		}
	}
	var listed []ledger.StoredForkProof
	for fp, err := range s.ForkProofs() {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, fp)
	}
	if len(listed) != 2 {
		t.Fatalf("%d fork proofs listed, want 2", len(listed))
	}
	for _, want := range listed {
		got, err := s.ForkProof(want.CID)
		if err != nil || !got.CID.Equals(want.CID) || got.Height != want.Height || !bytes.Equal(got.Raw, want.Raw) {
			t.Errorf("ForkProof(%s) = height %d, %v; want the listed proof at height %d", want.CID, got.Height, err, want.Height)
		}
	}
	if _, err := s.ForkProof(first.cid); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("a block's CID: %v, want ErrNotFound", err)
	}
	s.Close()

	damaged := listed[1]
	if err := ledgertest.OverwriteObject(dir, damaged.CID, append([]byte(nil), damaged.Raw[:len(damaged.Raw)-1]...)); err != nil {
		t.Fatal(err)
	}
	s = open(t, dir)
	defer s.Close()
	_, err := s.ForkProof(damaged.CID)
	var unreadable *ledger.UnreadableForkProofError
	if !errors.As(err, &unreadable) || !unreadable.CID.Equals(damaged.CID) || unreadable.Height != damaged.Height {
		t.Errorf("damaged proof: %v, want it unreadable at height %d", err, damaged.Height)
	}
	if got, err := s.ForkProof(listed[0].CID); err != nil || got.Height != listed[0].Height {
		t.Errorf("the other proof beside a damaged one: height %d, %v", got.Height, err)
	}
}
