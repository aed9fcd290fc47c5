package p2p

import (
	"fmt"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger"
)

// TestReviewRepeatedStatusStartsOneProofFetch: a status listing fork
// proofs the node does not know makes it fetch them from the peer. A peer
// that repeats such a status (each time with other proofs, so none is
// "seen" yet) and never answers the fetch must not make the node start one
// more fetch per status.
func TestReviewRepeatedStatusStartsOneProofFetch(t *testing.T) {
	store, err := ledger.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	n := startOn(t, store)
	h, _ := stallingPeer(t, n)
	const statuses = 60
	for i := range statuses {
		st := emptyStatus()
		st.Forks = []codec.Link{codec.LinkTo(codec.Sum(fmt.Appendf(nil, "proof %d", i)))}
		askStatus(t, h, n, st)
	}
	// Each status started its fetch before it was answered.
	if got := goroutinesIn("p2p.(*proofs).fetch("); got > 1 {
		t.Fatalf("%d statuses listing unknown fork proofs left %d proof fetches running against one peer, want at most 1", statuses, got)
	}
}
