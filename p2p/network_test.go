package p2p

import (
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/ipfs/go-cid"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// TestTwoNodesOverQUIC runs the whole path over QUIC only: binding
// exchange, gossip of a block with its transcripts, and backfill of blocks
// written before the peers met.
func TestTwoNodesOverQUIC(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	alice, _ := keys.FromURI("//Alice")
	storeA, err := ledger.Open(t.TempDir(), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	defer storeA.Close()
	storeB, err := ledger.Open(t.TempDir(), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	defer storeB.Close()
	appender, err := storeA.NewAppender(alice)
	if err != nil {
		t.Fatal(err)
	}
	add := func(first uint64) {
		ts := []record.Transcript{recordtest.Transcript(alice.Public(), first, 0), recordtest.Transcript(alice.Public(), first+1, 0)}
		if _, err := appender.Append(ctx, recordtest.Anchor(1), ts, nil); err != nil {
			t.Fatal(err)
		}
	}
	add(0) // written before the network starts: reaches B by backfill
	add(2)

	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	idA, idB := newIdentity(t), newIdentity(t)
	quic := []ma.Multiaddr{ma.StringCast("/ip4/127.0.0.1/udp/0/quic-v1")}
	netA, err := Start(storeA, Config{Identity: idA, Listen: quic, Key: alice, Logger: quiet, Heartbeat: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer netA.Close()
	netB, err := Start(storeB, Config{Identity: idB, Listen: quic, Logger: quiet, Heartbeat: 100 * time.Millisecond,
		Peers: []peer.AddrInfo{netA.AddrInfo()}})
	if err != nil {
		t.Fatal(err)
	}
	defer netB.Close()
	if err := netB.WaitHead(ctx, alice.Public(), 1); err != nil {
		t.Fatalf("backfill over QUIC: %v", err)
	}
	for len(netA.TopicPeers()) == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	add(4)
	netA.Announce()
	if err := netB.WaitHead(ctx, alice.Public(), 2); err != nil {
		t.Fatalf("gossip over QUIC: %v", err)
	}
	if st := netB.Stats(); st.StoredFromSync != 2 || st.StoredFromGossip != 1 {
		t.Errorf("B stored %d blocks by sync and %d by gossip, want 2 and 1", st.StoredFromSync, st.StoredFromGossip)
	}
	// B learned that A speaks for Alice.
	var bound *keys.PublicKey
	for _, p := range netB.Peers() {
		if p.ID == netA.ID() {
			bound = p.Validator
		}
	}
	if bound == nil || *bound != alice.Public() {
		t.Errorf("B sees A bound to %v, want %s", bound, alice.Public())
	}
	for _, tr := range ts(storeA, t, alice.Public()) {
		if _, err := storeB.Transcript(tr); err != nil {
			t.Errorf("B lacks transcript %s: %v", tr, err)
		}
	}
}

func newIdentity(t testing.TB) crypto.PrivKey {
	t.Helper()
	k, _, err := crypto.GenerateEd25519Key(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func ts(s *ledger.Store, t testing.TB, v keys.PublicKey) []cid.Cid {
	var out []cid.Cid
	for b, err := range s.Blocks(v, 0) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b.TranscriptCIDs()...)
	}
	return out
}
