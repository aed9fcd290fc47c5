package p2p

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// TestBackfillsHoldAtMostTheirMemory: four chains of blocks with 2 MiB of
// transcripts each, backfilled at once from one peer. Each fetch may return
// up to 8 MiB (a blocks response carries objects), so four workers, each
// holding a range being stored and one fetched ahead, held several times
// the bound below; now the bytes fetched and not yet stored never pass it,
// every chain arrives whole, and nothing stays charged.
func TestBackfillsHoldAtMostTheirMemory(t *testing.T) {
	t.Parallel()
	const chains, blocks, per, pad = 4, 6, 8, 256 << 10
	src, heads := manyChains(t, chains, blocks, per, pad)
	const fetch = 1 << 20
	limit := fetchBound(fetch) + 2<<20
	n, _ := quietNetwork(t, func(c *Config) {
		c.backfillMemory = limit
		c.backfillFetch = fetch
	})
	peerNet := startOn(t, src)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := n.host.Connect(ctx, peerNet.AddrInfo()); err != nil {
		t.Fatal(err)
	}
	for _, v := range heads {
		if err := n.WaitHead(ctx, v, blocks-1); err != nil {
			t.Fatalf("backfill of %s: %v", v.Short(), err)
		}
	}
	held, peak := n.sync.held.stats()
	if peak > limit {
		t.Errorf("backfills held %d bytes at once, bound %d", peak, limit)
	}
	if peak < pad*per {
		t.Errorf("peak of %d bytes is less than one block's objects: nothing was counted", peak)
	}
	// The worker releases a block's bytes just after Put returns, which
	// WaitHead may see first.
	for deadline := time.Now().Add(5 * time.Second); held != 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		held, _ = n.sync.held.stats()
	}
	if held != 0 {
		t.Errorf("%d bytes still charged after every chain was stored", held)
	}
	if got := n.Stats().StoredFromSync; got != chains*blocks {
		t.Errorf("stored %d blocks by sync, want %d", got, chains*blocks)
	}
}

// manyChains is a store holding a chain of each of n validators.
func manyChains(t *testing.T, n, blocks, per, pad int) (*ledger.Store, []keys.PublicKey) {
	t.Helper()
	s, err := ledger.Open(t.TempDir(), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	var heads []keys.PublicKey
	for i := range n {
		key, err := keys.FromURI(fmt.Sprintf("//backfill-%d", i))
		if err != nil {
			t.Fatal(err)
		}
		appendChain(t, s, key, blocks, per, pad)
		heads = append(heads, key.Public())
	}
	return s, heads
}

// TestHeldBytes: a reservation waits while the bytes would pass the limit,
// proceeds when nothing is held whatever its size, and is charged what the
// fetch returned.
func TestHeldBytes(t *testing.T) {
	h := newHeldBytes(100)
	ctx := context.Background()
	if err := h.reserve(ctx, 250); err != nil { // nothing held: proceeds
		t.Fatal(err)
	}
	h.settle(250, 60)
	if held, peak := h.stats(); held != 60 || peak != 250 {
		t.Fatalf("held %d peak %d, want 60 and 250", held, peak)
	}
	if err := h.reserve(ctx, 40); err != nil { // 100: fits
		t.Fatal(err)
	}
	waiting, cancelWait := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancelWait()
	if err := h.reserve(waiting, 1); err == nil {
		t.Fatal("a reservation past the limit did not wait")
	}
	got := make(chan error, 1)
	go func() { got <- h.reserve(ctx, 30) }()
	select {
	case err := <-got:
		t.Fatalf("reserved 30 bytes over a full limit: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	h.release(60) // 40 held: 30 fits
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	h.settle(40, 0)
	h.settle(30, 0)
	if held, _ := h.stats(); held != 0 {
		t.Fatalf("held %d after everything was given back", held)
	}
}
