package ledger_test

import (
	"context"
	"sync"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// TestAppenderUnderChangingLoad alternates appends made one at a time
// (which the commit loop answers itself) with bursts from many goroutines
// (answered by the acknowledging goroutine, blocks overlapping their
// fsyncs): every append is readable the moment it returns, its receipt
// matches the log, and no leaf is acknowledged twice or lost.
func TestAppenderUnderChangingLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	k := alice(t)
	v := k.Public()
	a := appender(t, s, k)
	var mu sync.Mutex
	acked := map[uint64]cid.Cid{}
	var next uint64
	appendOne := func(n uint64) error {
		r, err := a.Append(context.Background(), recordtest.Anchor(n), []record.Transcript{recordtest.Transcript(v, n, 64)}, nil)
		if err != nil {
			return err
		}
		st, err := s.Transcript(r.Transcripts[0])
		if err != nil {
			t.Errorf("transcript %d not readable once acknowledged: %v", n, err)
			return nil
		}
		if st.Ref.Leaf != r.FirstLeaf || st.Ref.Height != r.Block.Height {
			t.Errorf("transcript %d: receipt says leaf %d height %d, the store %d and %d", n, r.FirstLeaf, r.Block.Height, st.Ref.Leaf, st.Ref.Height)
		}
		if r.Checkpoint.Size <= r.FirstLeaf {
			t.Errorf("transcript %d: leaf %d outside the checkpoint of size %d", n, r.FirstLeaf, r.Checkpoint.Size)
		}
		mu.Lock()
		defer mu.Unlock()
		if _, dup := acked[r.FirstLeaf]; dup {
			t.Errorf("leaf %d acknowledged twice", r.FirstLeaf)
		}
		acked[r.FirstLeaf] = r.Transcripts[0]
		return nil
	}
	for round := 0; round < 3; round++ {
		before, err := s.Head(v)
		if err != nil && round > 0 {
			t.Fatal(err)
		}
		for i := 0; i < 20; i++ {
			if err := appendOne(next); err != nil {
				t.Fatal(err)
			}
			next++
		}
		after, err := s.Head(v)
		if err != nil {
			t.Fatal(err)
		}
		if grew := after.Checkpoint.Size - before.Checkpoint.Size; grew != 20 {
			t.Fatalf("round %d: 20 appends one at a time grew the log by %d", round, grew)
		}
		const workers, each = 16, 5
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := range workers {
			first := next + uint64(w*each)
			wg.Go(func() {
				for i := range uint64(each) {
					if err := appendOne(first + i); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		next += workers * each
	}
	if uint64(len(acked)) != next {
		t.Fatalf("%d leaves acknowledged, %d appended", len(acked), next)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if size := checkAcknowledged(t, dir, v, acked); size != next {
		t.Fatalf("log of %d transcripts after reopening, %d acknowledged", size, next)
	}
}
