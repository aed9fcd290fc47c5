// Package nodetest starts clusters of ledger nodes in one process, on
// loopback, for tests, benchmarks and a local devnet: each node has its own
// data directory, hotkey (or none, for an observer), port and identity, and
// the static peers its topology gives it, listed on both sides.
package nodetest

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/p2p"
)

// Topology says which nodes peer statically.
type Topology func(i, j, n int) bool

// FullMesh peers every node with every other.
func FullMesh(i, j, n int) bool { return i != j }

// Ring peers each node with the k nearest on each side of a ring.
func Ring(k int) Topology {
	return func(i, j, n int) bool {
		d := (j - i + n) % n
		return i != j && (d <= k || n-d <= k)
	}
}

// Options configure New.
type Options struct {
	// Observers are the indexes of nodes without a key.
	Observers []int
	Topology  Topology // default FullMesh
	// Tune adjusts each node's configuration before it starts.
	Tune func(i int, c *node.Config)
	// Log, if set, receives the nodes' logs (default: discarded).
	Log *slog.Logger
}

// Cluster is a set of nodes on loopback. Nodes are prepared (directory,
// key, identity, port) up front, so each can list the others as peers, and
// started and stopped individually.
type Cluster struct {
	tb      testing.TB
	Configs []node.Config
	Keys    []*keys.Hotkey // nil for observers
	Nodes   []*node.Node   // nil while stopped
	IDs     []peer.ID
}

// New prepares n nodes under tb.TempDir(); none is started.
func New(tb testing.TB, n int, opts Options) *Cluster {
	tb.Helper()
	if opts.Topology == nil {
		opts.Topology = FullMesh
	}
	logger := opts.Log
	if logger == nil {
		logger = Quiet()
		if dir := os.Getenv("LEDGER_NODETEST_LOG"); dir != "" {
			logger = LogToFile(tb, dir)
		}
	}
	observer := map[int]bool{}
	for _, i := range opts.Observers {
		observer[i] = true
	}
	c := &Cluster{tb: tb, Configs: make([]node.Config, n), Keys: make([]*keys.Hotkey, n), Nodes: make([]*node.Node, n), IDs: make([]peer.ID, n)}
	addrs := make([]ma.Multiaddr, n)
	var validators []keys.PublicKey
	for i := range n {
		dir := tb.TempDir()
		id, err := p2p.LoadIdentity(node.IdentityFile(dir))
		if err != nil {
			tb.Fatal(err)
		}
		if c.IDs[i], err = peer.IDFromPrivateKey(id); err != nil {
			tb.Fatal(err)
		}
		addrs[i] = ma.StringCast(fmt.Sprintf("/ip4/127.0.0.1/tcp/%d", FreePort(tb)))
		if !observer[i] {
			k, err := keys.FromSeed(seed(tb, i))
			if err != nil {
				tb.Fatal(err)
			}
			c.Keys[i] = k
			validators = append(validators, k.Public())
		}
		c.Configs[i] = node.Config{
			DataDir: dir, Key: c.Keys[i], Listen: []ma.Multiaddr{addrs[i]},
			NetUID: recordtest.Network.Netuid, Genesis: recordtest.Network.Genesis,
			Logger: logger.With("node", i), StatusEvery: time.Hour,
			// No periodic heads exchange: tests see what gossip and the
			// exchange on connect achieve on their own.
			Network: p2p.Config{Heartbeat: 100 * time.Millisecond, ReconnectInterval: 200 * time.Millisecond, StatusInterval: time.Hour},
		}
	}
	for i := range n {
		c.Configs[i].Validators = validators
		for j := range n {
			if opts.Topology(i, j, n) {
				c.Configs[i].Peers = append(c.Configs[i].Peers, peer.AddrInfo{ID: c.IDs[j], Addrs: []ma.Multiaddr{addrs[j]}})
			}
		}
		if opts.Tune != nil {
			opts.Tune(i, &c.Configs[i])
		}
	}
	tb.Cleanup(c.StopAll)
	return c
}

// seed is node i's deterministic hotkey seed.
func seed(tb testing.TB, i int) [32]byte {
	var s [32]byte
	copy(s[:], fmt.Sprintf("nodetest validator %d", i))
	return s
}

// Start starts node i.
func (c *Cluster) Start(i int) *node.Node {
	c.tb.Helper()
	if c.Nodes[i] != nil {
		c.tb.Fatalf("node %d already started", i)
	}
	n, err := node.Start(c.Configs[i])
	if err != nil {
		c.tb.Fatalf("start node %d: %v", i, err)
	}
	c.Nodes[i] = n
	return n
}

// StartAll starts every stopped node.
func (c *Cluster) StartAll() {
	for i := range c.Nodes {
		if c.Nodes[i] == nil {
			c.Start(i)
		}
	}
}

// Stop closes node i.
func (c *Cluster) Stop(i int) {
	if n := c.Nodes[i]; n != nil {
		if err := n.Close(); err != nil {
			c.tb.Errorf("close node %d: %v", i, err)
		}
		c.Nodes[i] = nil
	}
}

// StopAll closes every running node.
func (c *Cluster) StopAll() {
	for i := range c.Nodes {
		c.Stop(i)
	}
}

// Running returns the indexes of running nodes.
func (c *Cluster) Running() []int {
	var out []int
	for i, n := range c.Nodes {
		if n != nil {
			out = append(out, i)
		}
	}
	return out
}

// WaitMesh waits until every running node has at least want peers on the
// blocks topic.
func (c *Cluster) WaitMesh(ctx context.Context, want int) error {
	for _, i := range c.Running() {
		for len(c.Nodes[i].Network().TopicPeers()) < want {
			select {
			case <-ctx.Done():
				return fmt.Errorf("node %d has %d topic peers, want %d (%s): %w", i, len(c.Nodes[i].Network().TopicPeers()), want, c.absentFromTopic(i), ctx.Err())
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	return nil
}

// absentFromTopic says, for each other running node missing from node i's
// blocks topic, what node i's network knows of it: a rare failure to form
// the mesh then says whether the peer was banned, set apart or never
// connected.
func (c *Cluster) absentFromTopic(i int) string {
	net := c.Nodes[i].Network()
	var out []string
	for _, j := range c.Running() {
		id := c.IDs[j]
		if j == i || slices.Contains(net.TopicPeers(), id) {
			continue
		}
		out = append(out, fmt.Sprintf("node %d: %s, banned %v, apart %v",
			j, net.Host().Network().Connectedness(id), net.Banned(id), net.Apart(id)))
	}
	if len(out) == 0 {
		return "none absent"
	}
	return strings.Join(out, "; ")
}

// WaitHeads waits until every running node stores v's chain up to height.
func (c *Cluster) WaitHeads(ctx context.Context, v keys.PublicKey, height uint64) error {
	for _, i := range c.Running() {
		if err := c.Nodes[i].WaitHead(ctx, v, height); err != nil {
			return fmt.Errorf("node %d: %w", i, err)
		}
	}
	return nil
}

// Transcripts returns count transcripts of v numbered from first
// (recordtest.Transcript), each reply padded to pad bytes.
func Transcripts(v keys.PublicKey, first uint64, count, pad int) []record.Transcript {
	out := make([]record.Transcript, count)
	for i := range out {
		out[i] = recordtest.Transcript(v, first+uint64(i), pad)
	}
	return out
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Quiet is a logger that discards everything.
func Quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// LogToFile is an Options.Log writing to a file in dir, for debugging.
func LogToFile(tb testing.TB, dir string) *slog.Logger {
	f, err := os.CreateTemp(dir, strings.ReplaceAll(tb.Name(), "/", "_")+"-*.log")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
