package ledger_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

func TestAppendReadRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	k := alice(t)
	v := k.Public()
	a := appender(t, s, k)

	decision := []byte{0xa1, 0x61, 'x', 0x01} // {"x": 1}
	var ts []record.Transcript
	for i := uint64(0); i < 3; i++ {
		ts = append(ts, recordtest.Transcript(v, i, 0))
	}
	r0, err := a.Append(context.Background(), recordtest.Anchor(3), ts, [][]byte{decision})
	if err != nil {
		t.Fatal(err)
	}
	if r0.Block.Height != 0 || r0.FirstLeaf != 0 || len(r0.Transcripts) != 3 || r0.Checkpoint != record.CheckpointOf(r0.Transcripts) {
		t.Fatalf("first receipt %+v", r0)
	}
	r1 := appendRange(t, a, v, 3, 2)
	if r1.Block.Height != 1 || r1.FirstLeaf != 3 || r1.Checkpoint.Size != 5 {
		t.Fatalf("second receipt %+v", r1)
	}
	all := append(append([]cid.Cid(nil), r0.Transcripts...), r1.Transcripts...)
	if r1.Checkpoint != record.CheckpointOf(all) {
		t.Fatal("second checkpoint is not the root over all five transcripts")
	}

	b1, err := s.BlockAt(v, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !b1.CID.Equals(r1.Block.CID) || !b1.Prev.Cid.Equals(r0.Block.CID) || !b1.CID.Equals(codec.Sum(b1.Raw)) {
		t.Fatal("block 1 is not linked to block 0 or not the receipt's")
	}
	if err := b1.VerifySignature(); err != nil {
		t.Fatal(err)
	}
	if b0, err := s.Block(r0.Block.CID); err != nil || b0.Height != 0 || b0.Anchor != recordtest.Anchor(3) || len(b0.Decisions) != 1 {
		t.Fatalf("block by CID: %v %+v", err, b0)
	}
	if raw, err := s.Object(r0.Decisions[0]); err != nil || !bytes.Equal(raw, decision) {
		t.Fatalf("decision: %v %x", err, raw)
	}
	st, err := s.Transcript(r1.Transcripts[1])
	if err != nil {
		t.Fatal(err)
	}
	want := recordtest.Transcript(v, 4, 0)
	wantRaw, _, _ := want.Encode()
	if !bytes.Equal(st.Raw, wantRaw) || st.Ref.Leaf != 4 || st.Ref.Height != 1 || st.Ref.Validator != v || st.Challenge != want.Challenge {
		t.Fatalf("transcript read back as %+v", st.Ref)
	}

	h, err := s.Head(v)
	if err != nil || h.Block != r1.Block || h.Checkpoint != r1.Checkpoint || h.Equivocating {
		t.Fatalf("head %+v %v", h, err)
	}
	heads := 0
	for h, err := range s.Heads() {
		if err != nil || h.Block.Validator != v {
			t.Fatalf("heads: %v %+v", err, h)
		}
		heads++
	}
	if heads != 1 {
		t.Fatalf("%d heads", heads)
	}
	var leaves []cid.Cid
	for r, err := range s.Leaves(v, 0) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Leaf != uint64(len(leaves)) {
			t.Fatalf("leaf %d out of order", r.Leaf)
		}
		leaves = append(leaves, r.CID)
	}
	if len(leaves) != 5 || !leaves[4].Equals(all[4]) {
		t.Fatalf("leaves %v", leaves)
	}

	// Indexes: ledgertest miners cycle over 3 keys, duels likewise.
	count := func(seq func(func(ledger.TranscriptRef, error) bool)) (n int) {
		for r, err := range seq {
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Transcript(r.CID); err != nil {
				t.Fatal(err)
			}
			n++
		}
		return n
	}
	if n := count(s.TranscriptsByMiner(ts[1].Miner.Hotkey)); n != 2 { // transcripts 1 and 4
		t.Fatalf("by miner: %d, want 2", n)
	}
	if n := count(s.TranscriptsByChallenge(ts[2].Challenge)); n != 1 {
		t.Fatalf("by challenge: %d, want 1", n)
	}
	if n := count(s.TranscriptsByDuel(ts[0].Duel)); n != 2 { // 0 and 3
		t.Fatalf("by duel: %d, want 2", n)
	}
	if _, err := s.Transcript(codec.Sum([]byte("nope"))); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("missing transcript: %v", err)
	}

	// Reopen: everything is there and the chain continues.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Append(context.Background(), recordtest.Anchor(3), []record.Transcript{recordtest.Transcript(v, 50, 0)}, nil); !errors.Is(err, ledger.ErrClosed) {
		t.Fatalf("append after close: %v", err)
	}
	if _, err := s.Head(v); !errors.Is(err, ledger.ErrClosed) {
		t.Fatalf("read after close: %v", err)
	}
	s = open(t, dir)
	defer s.Close()
	if h2, err := s.Head(v); err != nil || h2 != h {
		t.Fatalf("head after reopen %+v, want %+v (%v)", h2, h, err)
	}
	a = appender(t, s, k)
	r2 := appendRange(t, a, v, 5, 1)
	if r2.Block.Height != 2 || r2.FirstLeaf != 5 || r2.Checkpoint != record.CheckpointOf(append(all, r2.Transcripts...)) {
		t.Fatalf("after reopen: %+v", r2)
	}
}

func TestGroupCommit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	k := alice(t)
	v := k.Public()
	a := appender(t, s, k)
	const workers, each = 16, 25
	var wg sync.WaitGroup
	receipts := make([][]ledger.Receipt, workers)
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				n := uint64(w*each + i)
				r, err := a.Append(context.Background(), recordtest.Anchor(n), []record.Transcript{recordtest.Transcript(v, n, 100)}, nil)
				if err != nil {
					errs <- err
					return
				}
				receipts[w] = append(receipts[w], r)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	seen := map[uint64]cid.Cid{}
	for _, rs := range receipts {
		for _, r := range rs {
			if _, dup := seen[r.FirstLeaf]; dup {
				t.Fatalf("leaf %d acknowledged twice", r.FirstLeaf)
			}
			seen[r.FirstLeaf] = r.Transcripts[0]
		}
	}
	h, err := s.Head(v)
	if err != nil {
		t.Fatal(err)
	}
	if h.Checkpoint.Size != workers*each || len(seen) != workers*each {
		t.Fatalf("log has %d transcripts, %d acknowledged, want %d", h.Checkpoint.Size, len(seen), workers*each)
	}
	blocks := h.Block.Height + 1
	t.Logf("%d transcripts from %d goroutines in %d blocks", workers*each, workers, blocks)
	if blocks >= workers*each {
		t.Fatalf("%d blocks for %d transcripts: no group commit", blocks, workers*each)
	}
	s.Close()
	checkAcknowledged(t, dir, v, seen)
}

// checkChain re-verifies every block of v: links, signatures and that each
// checkpoint is the root of the log up to it. It returns the log size.
func checkChain(t testing.TB, s *ledger.Store, v keys.PublicKey) uint64 {
	t.Helper()
	tree := record.NewTree()
	var prev cid.Cid
	var height uint64
	for b, err := range s.Blocks(v, 0) {
		if err != nil {
			t.Fatal(err)
		}
		if b.Height != height || (height > 0 && !b.Prev.Cid.Equals(prev)) {
			t.Fatalf("block %d: bad height or link", b.Height)
		}
		if err := b.VerifySignature(); err != nil {
			t.Fatal(err)
		}
		for _, c := range b.TranscriptCIDs() {
			tree.Append(c, nil)
		}
		if tree.Checkpoint() != b.Checkpoint {
			t.Fatalf("block %d: checkpoint %+v, log gives %+v", b.Height, b.Checkpoint, tree.Checkpoint())
		}
		prev, height = b.CID, height+1
	}
	return tree.Size()
}

func TestChallengeReuse(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	defer s.Close()
	k := alice(t)
	v := k.Public()
	a := appender(t, s, k)
	appendRange(t, a, v, 0, 2)
	again := recordtest.Transcript(v, 1, 0)
	again.Invocation = record.NewInvocationID() // a different run of the same challenge
	ctx := context.Background()
	if _, err := a.Append(ctx, recordtest.Anchor(0), []record.Transcript{again}, nil); !errors.Is(err, ledger.ErrChallengeReused) {
		t.Fatalf("reused challenge across blocks: %v", err)
	}
	fresh := recordtest.Transcript(v, 2, 0)
	if _, err := a.Append(ctx, recordtest.Anchor(0), []record.Transcript{fresh, fresh}, nil); !errors.Is(err, ledger.ErrChallengeReused) {
		t.Fatalf("reused challenge in one request: %v", err)
	}
	// Two concurrent requests with one challenge: exactly one wins, and
	// the loser does not sink the winner.
	f1 := a.Add(ctx, recordtest.Anchor(0), []record.Transcript{fresh}, nil)
	f2 := a.Add(ctx, recordtest.Anchor(0), []record.Transcript{fresh}, nil)
	_, e1 := f1()
	_, e2 := f2()
	if (e1 == nil) == (e2 == nil) || !errors.Is(errors.Join(e1, e2), ledger.ErrChallengeReused) {
		t.Fatalf("concurrent duplicates: %v / %v", e1, e2)
	}
	if h, _ := s.Head(v); h.Checkpoint.Size != 3 {
		t.Fatalf("log has %d transcripts, want 3", h.Checkpoint.Size)
	}
	// A duel puts one challenge to two miners: the same challenge with
	// another miner is a new use, found again by its CID.
	paired := recordtest.Transcript(v, 1, 0)
	paired.Miner.Hotkey[1] ^= 0xff
	rc, err := a.Append(ctx, recordtest.Anchor(0), []record.Transcript{paired}, nil)
	if err != nil {
		t.Fatalf("same challenge, other miner: %v", err)
	}
	if st, err := s.Transcript(rc.Transcripts[0]); err != nil || st.Ref.Leaf != 3 {
		t.Fatalf("paired transcript: leaf %d, %v", st.Ref.Leaf, err)
	}
	// Another validator may have run the same challenge (a re-execution)
	// in format 1. A format-2 seed derives the challenge from the
	// transcript's own validator, so format 2 cannot record it.
	other := recordtest.TranscriptV1(v, 0, 0)
	other.Validator = bob(t).Public()
	raw, c, err := other.Encode()
	if err != nil {
		t.Fatal(err)
	}
	_, braw, _, err := record.Sign(record.Header{Format: record.BlockFormat, Net: recordtest.Network, Validator: other.Validator, Anchor: recordtest.Anchor(0),
		Transcripts: []codec.Link{codec.LinkTo(c)}, Decisions: []codec.Link{}, Checkpoint: record.CheckpointOf([]cid.Cid{c})}, bob(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(braw, map[cid.Cid][]byte{c: raw}); err != nil {
		t.Fatalf("format-1 re-execution by another validator refused: %v", err)
	}
	b := appender(t, s, bob(t))
	otherV2 := recordtest.Transcript(v, 0, 0)
	otherV2.Validator = bob(t).Public()
	if _, err := b.Append(ctx, recordtest.Anchor(0), []record.Transcript{otherV2}, nil); !errors.Is(err, record.ErrMalformed) {
		t.Fatalf("format-2 re-execution by another validator: %v, want ErrMalformed", err)
	}
	n := 0
	for _, err := range s.TranscriptsByChallenge(other.Challenge) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 2 {
		t.Fatalf("challenge index lists %d transcripts, want 2", n)
	}
	n = 0
	for _, err := range s.TranscriptsByChallenge(paired.Challenge) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 2 {
		t.Fatalf("challenge index lists %d transcripts of the paired challenge, want 2", n)
	}
}

func TestAppendRefusesBadInput(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	defer s.Close()
	k := alice(t)
	a := appender(t, s, k, ledger.WithMaxBatch(2))
	ctx := context.Background()
	other := recordtest.Transcript(bob(t).Public(), 0, 0)
	if _, err := a.Append(ctx, record.Anchor{}, []record.Transcript{other}, nil); err == nil {
		t.Fatal("appended a transcript naming another validator")
	}
	bad := recordtest.Transcript(k.Public(), 0, 0)
	bad.Reason = string([]byte{0xff})
	if _, err := a.Append(ctx, record.Anchor{}, []record.Transcript{bad}, nil); !errors.Is(err, record.ErrMalformed) {
		t.Fatalf("invalid transcript: %v", err)
	}
	if _, err := a.Append(ctx, record.Anchor{}, nil, [][]byte{{0xff}}); !errors.Is(err, record.ErrMalformed) {
		t.Fatalf("invalid decision: %v", err)
	}
	three := []record.Transcript{recordtest.Transcript(k.Public(), 0, 0), recordtest.Transcript(k.Public(), 1, 0), recordtest.Transcript(k.Public(), 2, 0)}
	if _, err := a.Append(ctx, record.Anchor{}, three, nil); err == nil {
		t.Fatal("request above the batch cap accepted")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := a.Append(cancelled, record.Anchor{}, three[:1], nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled request: %v", err)
	}
	if _, err := s.Head(k.Public()); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("refused requests wrote a block: %v", err)
	}
}

func TestReadersKeepTheirView(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	defer s.Close()
	k := alice(t)
	v := k.Public()
	a := appender(t, s, k)
	appendRange(t, a, v, 0, 1)
	appendRange(t, a, v, 1, 1)
	n := 0
	for _, err := range s.Blocks(v, 0) {
		if err != nil {
			t.Fatal(err)
		}
		// Blocks appended while streaming are not part of this stream.
		appendRange(t, a, v, uint64(10+n), 1)
		n++
	}
	if n != 2 {
		t.Fatalf("stream saw %d blocks, want the 2 present when it began", n)
	}
	if h, _ := s.Head(v); h.Block.Height != 3 {
		t.Fatalf("head %d, want 3", h.Block.Height)
	}
}

func TestAppenderBatchOptions(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	defer s.Close()
	k := alice(t)
	v := k.Public()
	ctx := context.Background()
	// A long max wait gathers requests made one after the other into one
	// block; the batch cap splits them.
	a := appender(t, s, k, ledger.WithMaxWait(300*time.Millisecond), ledger.WithMaxBatch(4))
	var fs []ledger.Future
	for i := uint64(0); i < 6; i++ {
		fs = append(fs, a.Add(ctx, recordtest.Anchor(i), []record.Transcript{recordtest.Transcript(v, i, 0)}, nil))
	}
	var heights []uint64
	for _, f := range fs {
		r, err := f()
		if err != nil {
			t.Fatal(err)
		}
		heights = append(heights, r.Block.Height)
	}
	if fmt.Sprint(heights) != "[0 0 0 0 1 1]" {
		t.Fatalf("requests landed at heights %v, want four in block 0 and two in block 1", heights)
	}
	b0, _ := s.BlockAt(v, 0)
	b1, _ := s.BlockAt(v, 1)
	// A block takes the newest anchor of its requests.
	if b0.Anchor != recordtest.Anchor(3) || b1.Anchor != recordtest.Anchor(5) {
		t.Fatalf("anchors %d, %d; want 3, 5", b0.Anchor.Number, b1.Anchor.Number)
	}
	// An older anchor never moves a chain's anchor back.
	r, err := a.Append(ctx, recordtest.Anchor(1), []record.Transcript{recordtest.Transcript(v, 9, 0)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := s.Block(r.Block.CID); b.Anchor != recordtest.Anchor(5) || b.TimeMS < b1.TimeMS {
		t.Fatalf("anchor went back to %d", b.Anchor.Number)
	}
	if _, err := s.NewAppender(k); err == nil {
		t.Fatal("a second appender for one key was allowed")
	}
}

func TestAppenderWritesTheCurrentFormatOnly(t *testing.T) {
	t.Parallel()
	// spec/ledger.md, Format 1: format-1 transcripts stay readable in
	// peers' blocks and old logs, but writers write format 2 only.
	s := open(t, t.TempDir())
	defer s.Close()
	k := alice(t)
	a := appender(t, s, k)
	defer a.Close()
	old := recordtest.TranscriptV1(k.Public(), 1, 0)
	_, err := a.Append(context.Background(), recordtest.Anchor(1), []record.Transcript{old}, nil)
	if !errors.Is(err, record.ErrMalformed) || !strings.Contains(err.Error(), "format 1") {
		t.Fatalf("format-1 transcript appended: %v, want ErrMalformed naming the format", err)
	}
	if _, err := s.Head(k.Public()); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("head after the refusal: %v, want none", err)
	}
	if _, err := a.Append(context.Background(), recordtest.Anchor(1), []record.Transcript{recordtest.Transcript(k.Public(), 1, 0)}, nil); err != nil {
		t.Fatalf("format-2 transcript after the refusal: %v", err)
	}
}
