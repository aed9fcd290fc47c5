package p2p

import (
	"context"
	"sync"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/p2p/wire"
)

// heldBytes bounds the bytes of blocks and objects that backfills hold
// between fetching them and storing them, over all chains at once
// (spec/p2p.md#limits); another bounds the objects gossip validations
// fetch. Without it, each of the maxBackfills workers held
// a range being stored, one fetched ahead and one being fetched, each up
// to its fetch's bound: about 1 GiB in all when peers serve blocks at the
// 64 MiB limit.
//
// A fetch reserves the most it can return before it starts (reserve), is
// charged what it returned once it has (settle), and gives its blocks'
// bytes back as they are stored (release). A reservation waits while the
// bytes held would pass the limit, unless nothing is held: one fetch
// always proceeds, so a limit below a fetch's bound slows backfills down
// but never stops them.
type heldBytes struct {
	mu    sync.Mutex
	limit int64
	held  int64
	peak  int64
	// freed is closed, and replaced, whenever bytes are given back.
	freed chan struct{}
}

func newHeldBytes(limit int64) *heldBytes {
	return &heldBytes{limit: limit, freed: make(chan struct{})}
}

// reserve waits until n more bytes fit, and holds them.
func (h *heldBytes) reserve(ctx context.Context, n int64) error {
	for {
		h.mu.Lock()
		if h.held == 0 || h.held+n <= h.limit {
			h.add(n)
			h.mu.Unlock()
			return nil
		}
		freed := h.freed
		h.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// settle turns a reservation of reserved bytes into a charge of got, the
// bytes the fetch returned. got above reserved (a first block whose objects
// pass a budget below record.MaxBlockObjectBytes: see fetchBound) is
// charged all the same.
func (h *heldBytes) settle(reserved, got int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.add(got - reserved)
	h.wake()
}

// release gives n held bytes back.
func (h *heldBytes) release(n int64) {
	if n == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.add(-n)
	h.wake()
}

// add changes the bytes held by n; h.mu is held.
func (h *heldBytes) add(n int64) {
	h.held += n
	h.peak = max(h.peak, h.held)
}

// wake lets every waiting reservation look again; h.mu is held.
func (h *heldBytes) wake() {
	close(h.freed)
	h.freed = make(chan struct{})
}

// stats returns the bytes held now and the most ever held at once.
func (h *heldBytes) stats() (held, peak int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.held, h.peak
}

// fetchBound is the most one fetchBlocks call with an object budget of
// budget returns, in block and object bytes, when budget is at least
// record.MaxBlockObjectBytes (syncBudget): the blocks response (its items
// within the wire's response budget), then objects responses until the
// budget is passed, the last of them past it by at most one response. A
// smaller budget (tests) may be passed by a first block, always whole.
func fetchBound(budget int) int64 {
	return int64(budget) + 2*wire.ResponseBudget
}

// objectBytes is the bytes of objects.
func objectBytes(objects map[cid.Cid][]byte) int64 {
	var n int64
	for _, o := range objects {
		n += int64(len(o))
	}
	return n
}

// size is the bytes of f's block and objects.
func (f fetched) size() int64 {
	n := int64(len(f.raw))
	for _, o := range f.objects {
		n += int64(len(o))
	}
	return n
}

// sizeOf is the bytes of fs's blocks and objects.
func sizeOf(fs []fetched) int64 {
	var n int64
	for _, f := range fs {
		n += f.size()
	}
	return n
}
