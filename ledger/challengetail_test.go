package ledger_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble/v2"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// TestChallengeReuseAcrossFlushes appends through many memtable flushes
// and, after every block, re-runs challenges from the newest block (still
// in a memtable), from about half-way back (in a memtable or just flushed)
// and from the first block (in tables): the appender reads its tail for
// the first and flushed tables for the last, and must refuse all of them
// wherever they are.
func TestChallengeReuseAcrossFlushes(t *testing.T) {
	t.Parallel()
	// 256 KiB memtables and 16 KiB replies: a flush every ~15 transcripts.
	// Every eighth block holds 12 transcripts, a batch larger than half a
	// memtable, which Pebble queues for flushing as it is instead of
	// inserting it into the memtable.
	dir := t.TempDir()
	s, err := ledger.Open(dir, ledger.WithPebbleOptions(&pebble.Options{MemTableSize: 256 << 10}), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	k := alice(t)
	v := k.Public()
	a := appender(t, s, k)
	ctx := context.Background()
	const blocks = 40
	var next uint64
	for b := 0; b < blocks; b++ {
		per := uint64(4)
		if b%8 == 7 {
			per = 12
		}
		var ts []record.Transcript
		for i := next; i < next+per; i++ {
			ts = append(ts, recordtest.Transcript(v, i, 16<<10))
		}
		if _, err := a.Append(ctx, recordtest.Anchor(0), ts, nil); err != nil {
			t.Fatalf("block %d: %v", b, err)
		}
		next += per
		for _, n := range []uint64{0, next / 2, next - 1} {
			again := recordtest.Transcript(v, n, 0)
			again.Invocation = record.NewInvocationID()
			if _, err := a.Append(ctx, recordtest.Anchor(0), []record.Transcript{again}, nil); !errors.Is(err, ledger.ErrChallengeReused) {
				t.Fatalf("after block %d, transcript %d again: %v", b, n, err)
			}
		}
	}
	if h, err := s.Head(v); err != nil || h.Checkpoint.Size != next {
		t.Fatalf("log has %d transcripts (%v), want %d", h.Checkpoint.Size, err, next)
	}
	if tables, _ := filepath.Glob(filepath.Join(dir, "*.sst")); len(tables) == 0 {
		t.Fatal("no table was written: the test crossed no flush")
	}
	// The tail forgets what flushes wrote: it holds about a memtable's
	// challenges (16 at most here), not the log's.
	if n, q := ledger.ChallengeTail(a); n > 64 || q > 128 {
		t.Fatalf("the tail holds %d challenges in a queue of %d after %d transcripts: flushed ones are kept", n, q, next)
	}
	// Pebble refuses to close with iterators open: the checks' idle
	// iterators must be closed with the store.
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
}

// TestChallengeReuseAfterPut stores the start of a validator's chain as a
// peer's (Put) and then appends to it locally: the appender must see the
// challenges Put wrote, though they were never in its tail.
func TestChallengeReuseAfterPut(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	defer s.Close()
	k := alice(t)
	v := k.Public()
	p := &peerChain{t: t, key: k}
	for i := 0; i < 3; i++ {
		b := p.build(2, nil)
		if _, err := s.Put(b.raw, b.objs); err != nil {
			t.Fatal(err)
		}
		p.accept(b)
	}
	a := appender(t, s, k)
	ctx := context.Background()
	for n := uint64(0); n < 6; n++ {
		again := recordtest.Transcript(v, n, 0)
		again.Invocation = record.NewInvocationID()
		if _, err := a.Append(ctx, recordtest.Anchor(9), []record.Transcript{again}, nil); !errors.Is(err, ledger.ErrChallengeReused) {
			t.Fatalf("transcript %d of a stored block again: %v", n, err)
		}
	}
	if _, err := a.Append(ctx, recordtest.Anchor(9), []record.Transcript{recordtest.Transcript(v, 6, 0)}, nil); err != nil {
		t.Fatal(err)
	}
}
