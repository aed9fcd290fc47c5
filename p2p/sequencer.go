package p2p

import (
	"context"
	"sync"
	"time"

	"github.com/affine-ledger/ledger/keys"
)

// sequencer orders concurrent validations of one validator's consecutive
// blocks. Gossipsub validates messages in parallel; blocks h and h+1
// arriving together would otherwise race, h+1 would find its parent missing
// and be ignored (and not forwarded). A validation of height h waits, for a
// bounded time, for a validation of h-1 in progress.
type sequencer struct {
	mu   sync.Mutex
	busy map[slot]chan struct{}
}

type slot struct {
	v keys.PublicKey
	h uint64
}

// seqWait bounds the wait for the parent's validation.
const seqWait = 5 * time.Second

func newSequencer() *sequencer { return &sequencer{busy: map[slot]chan struct{}{}} }

// begin waits for a validation of (v, h-1) in progress and registers one of
// (v, h); release ends it.
func (s *sequencer) begin(ctx context.Context, v keys.PublicKey, h uint64) (release func()) {
	s.mu.Lock()
	var parent chan struct{}
	if h > 0 {
		parent = s.busy[slot{v, h - 1}]
	}
	me := slot{v, h}
	done := make(chan struct{})
	owner := false
	if _, ok := s.busy[me]; !ok {
		s.busy[me] = done
		owner = true
	}
	s.mu.Unlock()
	if parent != nil {
		t := time.NewTimer(seqWait)
		select {
		case <-parent:
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	return func() {
		if !owner {
			return
		}
		s.mu.Lock()
		delete(s.busy, me)
		s.mu.Unlock()
		close(done)
	}
}
