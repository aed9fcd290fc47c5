package p2p

import (
	"testing"
	"time"

	"github.com/affine-ledger/ledger/p2p/wire"
)

// TestReviewExpiredBansAreForgotten: spec/p2p.md keeps "one entry each,
// for 10 minutes" of banned peers, but an entry went only when its peer was
// looked up again after the ban: peers that get banned under fresh IDs and
// never come back (a bad request costs one handshake) grew the table for
// ever.
func TestReviewExpiredBansAreForgotten(t *testing.T) {
	n := startFresh(t, func(c *Config) { c.StatusInterval = 50 * time.Millisecond })
	const peers = 3
	for range peers {
		h := objectlessPeer(t, n.store)
		h.Connect(t.Context(), n.AddrInfo())
		ask(t, h, n, mustMarshal(t, wire.Request{Blocks: &wire.BlocksRequest{Count: 0}}))
		waitBanned(t, n, h)
		h.Close()
	}
	n.bans.mu.Lock()
	n.bans.now = func() time.Time { return time.Now().Add(BanDuration + time.Minute) }
	n.bans.mu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n.bans.mu.Lock()
		left := len(n.bans.until)
		n.bans.mu.Unlock()
		if left == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d bans of peers that never came back are kept past their end", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
