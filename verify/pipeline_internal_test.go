package verify

import (
	"testing"
	"time"
)

// The wake-up advance must not lose: a transcript becomes ready after the
// in-order stage found it not ready and before the stage unlocks, so the
// worker that finished it fails TryLock and leaves. The stage must then
// consume it itself, or the block waits forever. Every transcript may be
// the one: the first too, when the stage starts before any is ready.
func TestAdvanceAfterTryLockFails(t *testing.T) {
	t.Parallel()
	for _, firstReady := range []bool{true, false} {
		stalls := advanceWithLateTranscripts(t, firstReady)
		want := 2 // at transcripts 1 and 2
		if !firstReady {
			want = 3
		}
		if stalls != want {
			t.Fatalf("first ready %v: %d stalls, want %d", firstReady, stalls, want)
		}
	}
}

// advanceWithLateTranscripts runs the in-order stage over 3 transcripts,
// each made ready where the stage stalls on it, and returns the stalls.
func advanceWithLateTranscripts(t *testing.T, firstReady bool) int {
	t.Helper()
	p := &pipeline{items: make([]item, 3), slots: make(chan struct{}, ahead), quit: make(chan struct{}), finished: make(chan struct{})}
	for range p.items {
		p.slots <- struct{}{}
	}
	p.items[0].ready.Store(firstReady)
	stalls := 0
	p.stalled = func(i int) {
		stalls++
		// p.mu is held here, as by a stage about to unlock: this
		// worker's TryLock fails and it returns without consuming.
		p.done(&p.items[i])
	}
	var consumed []int
	end := make(chan error, 1)
	go func() {
		_, err := p.inOrder(func(i int, it *item) error {
			consumed = append(consumed, i)
			return nil
		})
		end <- err
	}()
	select {
	case err := <-end:
		if err != nil || len(consumed) != 3 || consumed[0] != 0 || consumed[1] != 1 || consumed[2] != 2 {
			t.Fatalf("first ready %v: consumed %v, %v; want 0 1 2", firstReady, consumed, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("first ready %v: the in-order stage lost a wake-up: consumed %v after 10 s", firstReady, consumed)
	}
	return stalls
}
