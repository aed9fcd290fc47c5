package ledger_test

import (
	"context"
	"maps"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

func alice(t testing.TB) *keys.Hotkey { return recordtest.Hotkey(t, "//Alice") }
func bob(t testing.TB) *keys.Hotkey   { return recordtest.Hotkey(t, "//Bob") }

func open(t testing.TB, dir string) *ledger.Store {
	t.Helper()
	s, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func appender(t testing.TB, s *ledger.Store, k *keys.Hotkey, opts ...ledger.AppenderOption) *ledger.Appender {
	t.Helper()
	a, err := s.NewAppender(k, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// appendRange appends transcripts n..n+count-1 of ledgertest in one request.
func appendRange(t testing.TB, a *ledger.Appender, v keys.PublicKey, n, count uint64) ledger.Receipt {
	t.Helper()
	var ts []record.Transcript
	for i := n; i < n+count; i++ {
		ts = append(ts, recordtest.Transcript(v, i, 0))
	}
	r, err := a.Append(context.Background(), recordtest.Anchor(n/100), ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// peerChain builds a validator's chain by hand, as a peer would send it.
type peerChain struct {
	t      testing.TB
	key    *keys.Hotkey
	leaves []cid.Cid
	head   *record.Block
	cid    cid.Cid
	next   uint64 // next ledgertest transcript number
}

type peerBlock struct {
	raw  []byte
	cid  cid.Cid
	blk  *record.Block
	objs map[cid.Cid][]byte
	ts   []cid.Cid
}

// build signs the next block with n fresh transcripts; edit may alter the
// header (after the checkpoint is computed) or the objects before signing.
// The chain does not advance until accept.
func (p *peerChain) build(n int, edit func(*record.Header, map[cid.Cid][]byte)) peerBlock {
	p.t.Helper()
	h := record.Header{Format: record.BlockFormat, Net: recordtest.Network, Validator: p.key.Public(), TimeMS: 1_700_000_000_000, Anchor: recordtest.Anchor(1)}
	if p.head != nil {
		h.Height = p.head.Height + 1
		h.Prev = codec.LinkTo(p.cid)
		h.TimeMS = p.head.TimeMS + 1000
		h.Anchor = recordtest.Anchor(p.head.Anchor.Number + 1)
	}
	objs := map[cid.Cid][]byte{}
	var ts []cid.Cid
	for i := 0; i < n; i++ {
		tr := recordtest.Transcript(p.key.Public(), p.next+uint64(i), 0)
		raw, c, err := tr.Encode()
		if err != nil {
			p.t.Fatal(err)
		}
		objs[c] = raw
		ts = append(ts, c)
		h.Transcripts = append(h.Transcripts, codec.LinkTo(c))
	}
	h.Checkpoint = record.CheckpointOf(append(append([]cid.Cid(nil), p.leaves...), ts...))
	if edit != nil {
		edit(&h, objs)
	}
	blk, raw, c, err := record.Sign(h, p.key)
	if err != nil {
		p.t.Fatal(err)
	}
	return peerBlock{raw: raw, cid: c, blk: blk, objs: objs, ts: ts}
}

func (p *peerChain) accept(b peerBlock) {
	p.leaves = append(p.leaves, b.ts...)
	p.head, p.cid = b.blk, b.cid
	p.next += uint64(len(b.ts))
}

// exportChain reads v's blocks and their objects from s, as a peer would
// send them.
func exportChain(t testing.TB, s *ledger.Store, v keys.PublicKey) []peerBlock {
	t.Helper()
	var out []peerBlock
	for b, err := range s.Blocks(v, 0) {
		if err != nil {
			t.Fatal(err)
		}
		objs := map[cid.Cid][]byte{}
		for _, c := range append(b.TranscriptCIDs(), b.DecisionCIDs()...) {
			raw, err := s.Object(c)
			if err != nil {
				t.Fatal(err)
			}
			objs[c] = raw
		}
		out = append(out, peerBlock{raw: b.Raw, cid: b.CID, blk: b.Block, objs: objs, ts: b.TranscriptCIDs()})
	}
	return out
}

func cloneObjs(m map[cid.Cid][]byte) map[cid.Cid][]byte { return maps.Clone(m) }

// checkAcknowledged reopens the store in dir and checks v's chain
// (checkChain) and that every acknowledged leaf holds the transcript its
// receipt named. It returns the log size.
func checkAcknowledged(t testing.TB, dir string, v keys.PublicKey, acked map[uint64]cid.Cid) uint64 {
	t.Helper()
	s := open(t, dir)
	defer s.Close()
	size := checkChain(t, s, v)
	for leaf, c := range acked {
		st, err := s.Transcript(c)
		if err != nil || st.Ref.Leaf != leaf {
			t.Fatalf("acknowledged leaf %d after reopening: %v %+v", leaf, err, st.Ref)
		}
	}
	return size
}
