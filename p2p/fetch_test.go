package p2p

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// objectlessPeer is a bare host answering sync requests from s: a blocks
// request with every block asked and no objects, as a peer may; an objects
// request as a node does. It serves no status; connect it to a node.
func objectlessPeer(t *testing.T, s *ledger.Store) host.Host {
	t.Helper()
	h, err := NewHost(newIdentity(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	serving := &Network{store: s}
	h.SetStreamHandler(wire.SyncProtocol, func(st network.Stream) {
		defer st.Close()
		data, err := wire.ReadFrame(bufio.NewReader(st), wire.MaxRequestBytes)
		if err != nil {
			st.Reset()
			return
		}
		req, err := wire.DecodeRequest(data)
		if err != nil {
			st.Reset()
			return
		}
		resp := &wire.Response{}
		switch {
		case req.Blocks != nil:
			br := &wire.BlocksResponse{Blocks: [][]byte{}, Objects: [][]byte{}}
			for b, err := range s.Blocks(req.Blocks.Validator, req.Blocks.From) {
				if err != nil || uint64(len(br.Blocks)) == req.Blocks.Count {
					break
				}
				br.Blocks = append(br.Blocks, b.Raw)
			}
			resp.Blocks = br
		case req.Objects != nil:
			if resp.Objects, err = serving.serveObjects(req.Objects); err != nil {
				st.Reset()
				return
			}
		default:
			st.Reset()
			return
		}
		out, err := codec.Marshal(resp)
		if err != nil {
			st.Reset()
			return
		}
		_ = wire.WriteFrame(st, out)
	})
	return h
}

// TestFetchBlocksKeepsToItsBudget: one blocks request may name 512 blocks,
// each linking up to 64 MiB, and a peer may answer with the blocks alone;
// a backfill then fetched and held every object they link at once. Now it
// keeps the blocks whose objects fit its budget, and always the first
// whole, however small the budget.
func TestFetchBlocksKeepsToItsBudget(t *testing.T) {
	t.Parallel()
	key, _ := keys.FromURI("//Alice")
	v := key.Public()
	// Blocks of 10 transcripts of about 1 MB; an objects response carries
	// 8 of them (8 MiB).
	const blocks, per = 3, 10
	peerHost := objectlessPeer(t, testChain(t, key, blocks, per, 1_000_000))
	n, _ := quietNetwork(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := peerHost.Connect(ctx, n.AddrInfo()); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		budget     int
		wantBlocks int
	}{
		{1, 1},          // the first block only, completed past the budget
		{20 << 20, 2},   // three objects responses, then the budget is spent
		{syncBudget, 3}, // every block fits
	} {
		got, err := n.fetchBlocks(ctx, peerHost.ID(), v, 0, blocks, c.budget)
		if err != nil {
			t.Fatalf("budget %d: %v", c.budget, err)
		}
		if len(got) != c.wantBlocks {
			t.Fatalf("budget %d: %d blocks, want %d", c.budget, len(got), c.wantBlocks)
		}
		for _, f := range got {
			links := wire.Links(f.blk)
			if len(f.objects) != len(links) {
				t.Fatalf("budget %d: block %d has %d objects of %d links", c.budget, f.blk.Height, len(f.objects), len(links))
			}
			for _, l := range links {
				if err := codec.CheckCID(f.objects[l], l); err != nil {
					t.Fatalf("budget %d: block %d: %v", c.budget, f.blk.Height, err)
				}
			}
		}
	}
}

// quietNetwork starts a network on a new store, listening on loopback,
// with no status exchange of its own and no peers unless tune adds some;
// both close with the test.
func quietNetwork(t *testing.T, tune ...func(*Config)) (*Network, *ledger.Store) {
	t.Helper()
	s, err := ledger.Open(t.TempDir(), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	cfg := Config{
		Identity:       newIdentity(t),
		Listen:         []ma.Multiaddr{ma.StringCast("/ip4/127.0.0.1/tcp/0")},
		Logger:         slog.New(slog.NewTextHandler(io.Discard, nil)),
		StatusInterval: time.Hour,
	}
	for _, f := range tune {
		f(&cfg)
	}
	n, err := Start(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n, s
}
