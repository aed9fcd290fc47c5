package verify_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
)

// TestStoreReadPaths: the read paths VerifyStore uses (the height index
// without the blocks, objects lent in place, one iterator for many reads)
// give exactly what the copying reads give, and say ErrNotFound alike.
func TestStoreReadPaths(t *testing.T) {
	t.Parallel()
	dir, ks := build(t, small)
	s := open(t, dir)
	defer s.Close()
	r, err := s.NewObjectReader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	same := func(what string, want []byte) func([]byte) error {
		return func(raw []byte) error {
			if !bytes.Equal(raw, want) {
				t.Fatalf("%s: lent bytes differ from the copy", what)
			}
			return nil
		}
	}
	objects := 0
	for _, k := range ks {
		v := k.Public()
		var refs []record.BlockRef
		for ref, err := range s.BlockRefs(v, 1) {
			if err != nil {
				t.Fatal(err)
			}
			refs = append(refs, ref)
		}
		var blocks []record.BlockRef
		for b, err := range s.Blocks(v, 1) {
			if err != nil {
				t.Fatal(err)
			}
			blocks = append(blocks, b.Ref())
			for _, c := range append(append(b.TranscriptCIDs(), b.DecisionCIDs()...), b.CID) {
				want, err := s.Object(c)
				if err != nil {
					t.Fatal(err)
				}
				if err := s.ReadObject(c, same("ReadObject "+c.String(), want)); err != nil {
					t.Fatal(err)
				}
				if err := r.Read(c, same("ObjectReader "+c.String(), want)); err != nil {
					t.Fatal(err)
				}
				objects++
			}
		}
		if len(refs) != len(blocks) || len(refs) != small.Blocks-1 {
			t.Fatalf("validator %s: %d refs from height 1, %d blocks, want %d", v, len(refs), len(blocks), small.Blocks-1)
		}
		for i := range refs {
			if refs[i].Height != blocks[i].Height || !refs[i].CID.Equals(blocks[i].CID) || refs[i].Validator != v {
				t.Fatalf("ref %d is %+v, the block %+v", i, refs[i], blocks[i])
			}
		}
	}
	if objects == 0 {
		t.Fatal("no object read")
	}

	missing := codec.Sum([]byte("not stored"))
	called := false
	for name, read := range map[string]func() error{
		"ReadObject":   func() error { return s.ReadObject(missing, func([]byte) error { called = true; return nil }) },
		"ObjectReader": func() error { return r.Read(missing, func([]byte) error { called = true; return nil }) },
	} {
		if err := read(); !errors.Is(err, ledger.ErrNotFound) {
			t.Errorf("%s of a missing object: %v, want ErrNotFound", name, err)
		}
	}
	if called {
		t.Error("fn called for a missing object")
	}
	// fn's error comes back as it is.
	head, err := s.Head(ks[0].Public())
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	if err := s.ReadObject(head.Block.CID, func([]byte) error { return stop }); err != stop {
		t.Errorf("ReadObject returned %v, want fn's error", err)
	}
}
