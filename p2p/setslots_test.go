package p2p

import (
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// TestPeersOutsideTheSetLeaveSlotsForValidators: peer IDs cost nothing,
// so eight of them could hold all of a responder's stream slots, and a
// validator's node that needed a block got "busy". Peers not bound to a
// validator of the node's set now share half the slots; a validator's
// peer is served however many others hold them.
func TestPeersOutsideTheSetLeaveSlotsForValidators(t *testing.T) {
	t.Parallel()
	validator, err := keys.Generate()
	if err != nil {
		t.Fatal(err)
	}
	n, bound := served(t, Config{Validators: NewStaticSet(validator.Public())})
	b, err := wire.NewBinding(validator, bound.ID(), 0)
	if err != nil {
		t.Fatal(err)
	}
	st := emptyStatus()
	st.Binding = b
	askStatus(t, bound, n, st)

	var held []network.Stream
	for range MaxStreams / MaxStreamsPerPeer {
		h := connectedHost(t, n)
		for range MaxStreamsPerPeer {
			held = append(held, hold(t, h, n))
		}
	}
	// Every held stream reaches the responder, which keeps it or answers
	// it busy; wait for the count to settle.
	var total int
	for settled, last := 0, -1; settled < 20; time.Sleep(25 * time.Millisecond) {
		n.serving.mu.Lock()
		total = n.serving.total
		n.serving.mu.Unlock()
		if total == last {
			settled++
		} else {
			settled, last = 0, total
		}
	}
	if total != MaxStreamsOutsideSet {
		t.Fatalf("peers outside the set hold %d stream slots, want %d", total, MaxStreamsOutsideSet)
	}
	if resp := ask(t, bound, n, mustMarshal(t, objectsRequest)); resp.Objects == nil {
		t.Fatalf("the validator's peer was answered %+v with %d slots held by others", resp, total)
	}
	for _, s := range held {
		s.Reset()
	}
}

// connectedHost is a fresh host connected to n that refuses n's requests.
func connectedHost(t *testing.T, n *Network) host.Host {
	t.Helper()
	h, err := NewHost(newIdentity(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	h.SetStreamHandler(wire.SyncProtocol, func(s network.Stream) { s.Reset() })
	if err := h.Connect(t.Context(), n.AddrInfo()); err != nil {
		t.Fatal(err)
	}
	return h
}
