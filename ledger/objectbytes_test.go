package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// bigDecisions returns n distinct decisions of nearly MaxDecisionBytes
// each: the cheapest way to fill a block's object bytes.
func bigDecisions(t testing.TB, n int) [][]byte {
	t.Helper()
	out := make([][]byte, n)
	for i := range out {
		pad := make([]byte, record.MaxDecisionBytes-64)
		copy(pad, fmt.Sprintf("decision %d", i))
		raw, err := codec.Marshal(map[string]any{"pad": pad})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = raw
	}
	return out
}

// decisionOf returns a decision of exactly size bytes.
func decisionOf(t testing.TB, size int, tag string) []byte {
	t.Helper()
	var out []byte
	for pad := size - 16; len(out) != size; pad -= len(out) - size {
		var err error
		if out, err = codec.Marshal(map[string]any{tag: make([]byte, pad)}); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func objectBytes(objs map[cid.Cid][]byte) int {
	n := 0
	for _, o := range objs {
		n += len(o)
	}
	return n
}

// TestPutRefusesBlockOverObjectBytes: a block whose objects total more than
// MaxBlockObjectBytes is refused before they are decoded; one at the bound
// is stored.
func TestPutRefusesBlockOverObjectBytes(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	t.Cleanup(func() { s.Close() })
	p := &peerChain{t: t, key: alice(t)}
	ds := bigDecisions(t, record.MaxBlockObjectBytes/record.MaxDecisionBytes+1)
	withDecisions := func(ds [][]byte) func(*record.Header, map[cid.Cid][]byte) {
		return func(h *record.Header, objs map[cid.Cid][]byte) {
			for _, d := range ds {
				c := codec.Sum(d)
				objs[c] = d
				h.Decisions = append(h.Decisions, codec.LinkTo(c))
			}
		}
	}

	over := p.build(1, withDecisions(ds))
	if n := objectBytes(over.objs); n <= record.MaxBlockObjectBytes {
		t.Fatalf("test block links %d bytes, not over the bound", n)
	}
	_, err := s.Put(over.raw, over.objs)
	if !errors.Is(err, ledger.ErrInvalidBlock) || !strings.Contains(err.Error(), "max 67108864") {
		t.Fatalf("Put of a block linking %d bytes: %v, want invalid block naming the bound", objectBytes(over.objs), err)
	}
	if _, err := s.Head(p.key.Public()); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("refused block stored: head %v", err)
	}

	// Fill to exactly the bound with two more, smaller decisions.
	under := p.build(1, withDecisions(ds[:63]))
	rest := record.MaxBlockObjectBytes - objectBytes(under.objs)
	at := p.build(1, withDecisions(append(ds[:63:63], decisionOf(t, rest/2, "a"), decisionOf(t, rest-rest/2, "b"))))
	if n := objectBytes(at.objs); n != record.MaxBlockObjectBytes {
		t.Fatalf("test block links %d bytes, want exactly %d", n, record.MaxBlockObjectBytes)
	}
	if _, err := s.Put(at.raw, at.objs); err != nil {
		t.Fatalf("Put of a block at the bound: %v", err)
	}
}

// TestAppenderKeepsBlocksWithinObjectBytes: a request over the bound is
// refused at once; two requests that fit alone but not together go to two
// blocks, even when the commit loop waits to group them.
func TestAppenderKeepsBlocksWithinObjectBytes(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	t.Cleanup(func() { s.Close() })
	k := alice(t)
	a := appender(t, s, k, ledger.WithMaxWait(2*time.Second))
	t.Cleanup(func() { a.Close() })
	ctx := context.Background()
	ds := bigDecisions(t, 70)

	if _, err := a.Append(ctx, recordtest.Anchor(1), nil, ds[:65]); err == nil || !strings.Contains(err.Error(), "more than one block may link") {
		t.Fatalf("append of 65 MiB: %v, want refused", err)
	}
	first := a.Add(ctx, recordtest.Anchor(1), []record.Transcript{recordtest.Transcript(k.Public(), 0, 0)}, ds[:35])
	second := a.Add(ctx, recordtest.Anchor(1), []record.Transcript{recordtest.Transcript(k.Public(), 1, 0)}, ds[35:70])
	r1, err := first()
	if err != nil {
		t.Fatal(err)
	}
	r2, err := second()
	if err != nil {
		t.Fatal(err)
	}
	if r1.Block.Height == r2.Block.Height {
		t.Fatalf("both requests (70 MiB) in block %d", r1.Block.Height)
	}
	for b, err := range s.Blocks(k.Public(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		size := 0
		for _, c := range append(b.TranscriptCIDs(), b.DecisionCIDs()...) {
			raw, err := s.Object(c)
			if err != nil {
				t.Fatal(err)
			}
			size += len(raw)
		}
		if size > record.MaxBlockObjectBytes {
			t.Fatalf("block %d links %d bytes", b.Height, size)
		}
	}
}
