package p2p

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// TestStallingClaimantDoesNotHoldEveryBackfill: a peer that claims every
// chain far beyond its head and never answers a request cost each chain a
// RequestTimeout (30 s) before its backfill turned to an honest peer, four
// chains at a time: 8 chains took a minute, 64 would take eight, and a
// status sent again claimed them all afresh. Such a peer is now passed
// over by every backfill for a while after its first stall.
func TestStallingClaimantDoesNotHoldEveryBackfill(t *testing.T) {
	t.Parallel()
	const chains, blocks = 2 * maxBackfills, 3
	var vs []keys.PublicKey
	honestStore, err := ledger.Open(t.TempDir(), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { honestStore.Close() })
	for i := range chains {
		k, err := keys.FromURI(fmt.Sprintf("//Stalled%d", i))
		if err != nil {
			t.Fatal(err)
		}
		a, err := honestStore.NewAppender(k)
		if err != nil {
			t.Fatal(err)
		}
		for b := range blocks {
			tr := recordtest.Transcript(k.Public(), uint64(b), 0)
			if _, err := a.Append(context.Background(), recordtest.Anchor(1), []record.Transcript{tr}, nil); err != nil {
				t.Fatal(err)
			}
		}
		a.Close()
		vs = append(vs, k.Public())
	}
	n := startFresh(t)
	staller, requests := stallingPeer(t, n)
	st := emptyStatus()
	for _, v := range vs {
		st.Heads = append(st.Heads, wire.Head{Validator: v, Height: 1000, CID: codec.LinkTo(codec.Sum([]byte(v.String())))})
	}
	slices.SortFunc(st.Heads, func(a, b wire.Head) int { return bytes.Compare(a.Validator[:], b.Validator[:]) })
	askStatus(t, staller, n, st)

	honest := startOn(t, honestStore)
	start := time.Now()
	if err := honest.Host().Connect(context.Background(), n.AddrInfo()); err != nil {
		t.Fatal(err)
	}
	// One round of stalls (RequestTimeout) is the cost; a second would
	// take past the deadline.
	ctx, cancel := context.WithTimeout(context.Background(), RequestTimeout+15*time.Second)
	defer cancel()
	for _, v := range vs {
		if err := n.WaitHead(ctx, v, blocks-1); err != nil {
			t.Fatalf("chain %s not backfilled from the honest peer after %v (%d requests to the staller): %v", v.Short(), time.Since(start).Round(time.Second), requests.Load(), err)
		}
	}
	t.Logf("%d chains backfilled in %v; %d requests stalled", chains, time.Since(start).Round(time.Second), requests.Load())
}
