package p2p

import (
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// TestReviewRepeatedStatusStartsOneForkResolution: a status naming the
// node's head height of a chain with another CID makes the node fetch the
// peer's block there (a fork proof may come of it). A peer that repeats
// that status, and never answers the fetch (a timeout, no misbehavior),
// must not make the node start one more fetch per status: each waits for
// one of the peer's stream slots, for as long as the peer stalls, and the
// peer may send 50 statuses a second.
func TestReviewRepeatedStatusStartsOneForkResolution(t *testing.T) {
	alice, _ := keys.FromURI("//Alice")
	n := startOn(t, testChain(t, alice, 1, 1, 0))
	h, _ := stallingPeer(t, n)
	st := emptyStatus()
	st.Heads = []wire.Head{{Validator: alice.Public(), Height: 0, CID: codec.LinkTo(codec.Sum([]byte("another block")))}}
	const statuses = 60
	for range statuses {
		askStatus(t, h, n, st)
	}
	// Each status started its resolution before it was answered.
	if got := goroutinesIn("p2p.(*syncer).fork("); got > 1 {
		t.Fatalf("%d statuses naming one forked chain left %d fork resolutions running against one peer, want at most 1", statuses, got)
	}
}
