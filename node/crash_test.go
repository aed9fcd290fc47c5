package node_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ipfs/go-cid"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/node/nodetest"
	"github.com/affine-ledger/ledger/p2p"
	"github.com/affine-ledger/ledger/verify"
)

// The crash child's configuration, from the parent's cluster.
const (
	crashDirEnv       = "LEDGER_NODE_CRASH_DIR"
	crashListenEnv    = "LEDGER_NODE_CRASH_LISTEN"
	crashPeerEnv      = "LEDGER_NODE_CRASH_PEER"
	crashValidatorEnv = "LEDGER_NODE_CRASH_VALIDATOR"
)

// TestCrashDuringSync kills (SIGKILL) an observer node process at random
// moments while it backfills a long chain from an honest node. After each
// kill its store opens, holds every block the child reported stored (each
// the honest block at its height), and verifies; then a restarted node
// completes the sync.
func TestCrashDuringSync(t *testing.T) {
	if os.Getenv(crashDirEnv) != "" {
		t.Skip("running as the crash child")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	rng := crashRand(t)
	c := nodetest.New(t, 2, nodetest.Options{Observers: []int{1}})
	c.Start(0)
	v := c.Keys[0].Public()
	t0 := time.Now()
	const blocks = 150
	top := appendBlocks(t, ctx, c, 0, 0, blocks, 3, 300)[blocks-1].Block.Height
	t.Logf("honest chain of %d blocks in %v", blocks, time.Since(t0))

	var acked []childAck
	midSync := 0
	stored, storedAny := uint64(0), false
	for round := range 4 {
		ch := startCrashChild(t, c, 1)
		// Kill at a random moment of the backfill: once the child has
		// stored a block at or above a random height in the first half of
		// what it lacks, and up to a millisecond later. (A random delay of
		// up to 150 ms after its first block let a fast backfill of the
		// whole chain finish first.)
		lo := uint64(0)
		if storedAny {
			lo = stored + 1
		}
		target := lo + uint64(rng.IntN(int(max(1, (top-lo)/2))))
		ch.wait(ctx, fmt.Sprintf("round %d: a block at height %d or above", round, target), func(a childAck) bool { return a.height >= target })
		time.Sleep(time.Duration(rng.IntN(1000)) * time.Microsecond)
		got := ch.kill()
		acked = append(acked, got...)
		h := checkCrashedStore(t, c, 1, v, acked)
		stored, storedAny = h, true
		t.Logf("round %d: killed at height %d of %d (%d heads reported in this run)", round, h, top, len(got))
		if h < top {
			midSync++
		} else {
			break
		}
	}
	if midSync == 0 {
		t.Fatal("every kill came after the backfill finished: the test tested nothing")
	}
	n := c.Start(1)
	if err := n.WaitHead(ctx, v, top); err != nil {
		t.Fatalf("restarted node did not complete the sync: %v", err)
	}
	sameChains(t, c, 0, v)
}

// TestCrashDuringGossip kills an observer node process at random moments
// while an honest validator keeps appending blocks that reach it by gossip.
// After each kill its store holds every block it reported, the honest
// ones, and verifies; a restarted node catches up.
func TestCrashDuringGossip(t *testing.T) {
	if os.Getenv(crashDirEnv) != "" {
		t.Skip("running as the crash child")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	rng := crashRand(t)
	c := nodetest.New(t, 2, nodetest.Options{Observers: []int{1}})
	n0 := c.Start(0)
	v := c.Keys[0].Public()
	appendBlocks(t, ctx, c, 0, 0, 2, 2, 0)

	var acked []childAck
	var top uint64
	for round := range 3 {
		ch := startCrashChild(t, c, 1)
		cur, err := n0.Store().Head(v)
		if err != nil {
			t.Fatal(err)
		}
		ch.wait(ctx, fmt.Sprintf("round %d: catch up to height %d", round, cur.Block.Height), func(a childAck) bool { return a.height >= cur.Block.Height })
		waitFor(t, ctx, "the child on the blocks topic", func() bool {
			return slices.Contains(n0.Network().TopicPeers(), c.IDs[1])
		})
		stop := appendLoop(t, ctx, c, 0, uint64(round+1)<<20, 10*time.Millisecond)
		ch.wait(ctx, fmt.Sprintf("round %d: a gossiped block", round), func(a childAck) bool { return a.height > cur.Block.Height })
		time.Sleep(time.Duration(rng.IntN(300)) * time.Millisecond)
		got := ch.kill()
		top = stop()
		acked = append(acked, got...)
		h := checkCrashedStore(t, c, 1, v, acked)
		last := got[len(got)-1]
		t.Logf("round %d: killed at height %d while node 0 reached %d (%d blocks stored from gossip, %d by sync)", round, h, top, last.gossip, last.sync)
	}
	if !slices.ContainsFunc(acked, func(a childAck) bool { return a.gossip > 0 }) {
		t.Fatal("the child never stored a block from gossip: the test tested nothing")
	}
	n := c.Start(1)
	if err := n.WaitHead(ctx, v, top); err != nil {
		t.Fatalf("restarted node did not catch up: %v", err)
	}
	sameChains(t, c, 0, v)
}

func crashRand(t *testing.T) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, 0))
}

// childAck is a head the child reported once its store published it (so
// durably stored), with its counts of peers' blocks stored so far.
type childAck struct {
	height       uint64
	cid          cid.Cid
	gossip, sync int64
}

// crashChild is a running child node process.
type crashChild struct {
	t      *testing.T
	cmd    *exec.Cmd
	stderr strings.Builder
	mu     sync.Mutex
	acks   []childAck
	more   chan struct{} // closed and replaced at each ack
	read   chan struct{} // closed when stdout ends
}

// startCrashChild runs node i of c (prepared, not started in this process)
// as a child process.
func startCrashChild(t *testing.T, c *nodetest.Cluster, i int) *crashChild {
	t.Helper()
	cfg := c.Configs[i]
	if len(cfg.Peers) != 1 || len(cfg.Validators) != 1 {
		t.Fatalf("crash child: want one peer and one validator, have %d and %d", len(cfg.Peers), len(cfg.Validators))
	}
	p := cfg.Peers[0]
	peerAddr := p.Addrs[0].Encapsulate(ma.StringCast("/p2p/" + p.ID.String()))
	ch := &crashChild{t: t, more: make(chan struct{}), read: make(chan struct{})}
	ch.cmd = exec.Command(os.Args[0], "-test.run=^TestCrashNodeChild$", "-test.count=1")
	ch.cmd.Env = append(os.Environ(),
		crashDirEnv+"="+cfg.DataDir,
		crashListenEnv+"="+cfg.Listen[0].String(),
		crashPeerEnv+"="+peerAddr.String(),
		crashValidatorEnv+"="+cfg.Validators[0].SS58(),
	)
	ch.cmd.Stderr = &ch.stderr
	out, err := ch.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ch.kill() })
	go func() {
		defer close(ch.read)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			// A line cut by the kill has no newline and Scan still returns
			// it: only whole, parsable lines count.
			a, ok := parseAck(sc.Text())
			if !ok {
				continue
			}
			ch.mu.Lock()
			ch.acks = append(ch.acks, a)
			close(ch.more)
			ch.more = make(chan struct{})
			ch.mu.Unlock()
		}
	}()
	return ch
}

func parseAck(line string) (childAck, bool) {
	f := strings.Fields(line)
	if len(f) != 5 || f[0] != "ack" {
		return childAck{}, false
	}
	var a childAck
	var err error
	if a.height, err = strconv.ParseUint(f[1], 10, 64); err != nil {
		return a, false
	}
	if a.cid, err = cid.Decode(f[2]); err != nil {
		return a, false
	}
	if a.gossip, err = strconv.ParseInt(f[3], 10, 64); err != nil {
		return a, false
	}
	if a.sync, err = strconv.ParseInt(f[4], 10, 64); err != nil {
		return a, false
	}
	return a, true
}

// wait returns once the child reported a head satisfying ok.
func (ch *crashChild) wait(ctx context.Context, what string, ok func(childAck) bool) {
	ch.t.Helper()
	for {
		ch.mu.Lock()
		found := slices.ContainsFunc(ch.acks, ok)
		more := ch.more
		ch.mu.Unlock()
		if found {
			return
		}
		select {
		case <-more:
		case <-ch.read:
			ch.kill()
			ch.t.Fatalf("crash child: %s: it exited (%v):\n%s", what, ch.cmd.ProcessState, ch.stderr.String())
		case <-ctx.Done():
			ch.kill()
			ch.t.Fatalf("crash child: %s: %v\n%s", what, ctx.Err(), ch.stderr.String())
		}
	}
}

// kill sends SIGKILL, waits for the process, and returns what it reported.
func (ch *crashChild) kill() []childAck {
	if ch.cmd.ProcessState == nil {
		_ = ch.cmd.Process.Kill()
		<-ch.read
		_ = ch.cmd.Wait()
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return slices.Clone(ch.acks)
}

// checkCrashedStore opens node i's store after a kill: it must open, hold
// each reported head at its height (so every block it acknowledged),
// every block must be node 0's block at that height, and verify must pass.
// It returns the height of the stored head.
func checkCrashedStore(t *testing.T, c *nodetest.Cluster, i int, v keys.PublicKey, acked []childAck) uint64 {
	t.Helper()
	s, err := ledger.Open(node.StoreDir(c.Configs[i].DataDir), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatalf("reopen the killed node's store: %v", err)
	}
	defer s.Close()
	head, err := s.Head(v)
	if err != nil {
		if len(acked) > 0 {
			t.Fatalf("killed node's store has no chain, but it reported height %d: %v", acked[len(acked)-1].height, err)
		}
		return 0
	}
	for _, a := range acked {
		b, err := s.BlockAt(v, a.height)
		if err != nil {
			t.Fatalf("acknowledged block %d (%s) lost: %v", a.height, a.cid, err)
		}
		if !b.CID.Equals(a.cid) {
			t.Fatalf("block %d is %s, the node acknowledged %s", a.height, b.CID, a.cid)
		}
	}
	honest := c.Nodes[0].Store()
	for b, err := range s.Blocks(v, 0) {
		if err != nil {
			t.Fatal(err)
		}
		want, err := honest.BlockAt(v, b.Height)
		if err != nil || !want.CID.Equals(b.CID) {
			t.Fatalf("killed node stores %s at height %d, the honest chain has %s (%v)", b.CID, b.Height, want.CID, err)
		}
	}
	heads, err := verify.StoreHeads(s, verify.StoreScope{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verify.VerifyStore(s, heads, verify.StoreScope{}, verify.Options{Challenges: verify.NewMemSet()})
	if err != nil || !rep.OK || uint64(rep.Blocks) != head.Block.Height+1 {
		t.Fatalf("verify the killed node's store: %v: %+v", err, rep)
	}
	return head.Block.Height
}

// TestCrashNodeChild is the node TestCrashDuringSync and
// TestCrashDuringGossip kill: an observer replicating one validator's
// chain that prints "ack <height> <cid> <from gossip> <by sync>" for each
// new head its store publishes (published means durable) until killed.
func TestCrashNodeChild(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("only run by TestCrashDuringSync and TestCrashDuringGossip")
	}
	listen, err := ma.NewMultiaddr(os.Getenv(crashListenEnv))
	if err != nil {
		t.Fatal(err)
	}
	p, err := peer.AddrInfoFromString(os.Getenv(crashPeerEnv))
	if err != nil {
		t.Fatal(err)
	}
	v, err := keys.ParseSS58(os.Getenv(crashValidatorEnv))
	if err != nil {
		t.Fatal(err)
	}
	n, err := node.Start(node.Config{
		DataDir: dir, Listen: []ma.Multiaddr{listen}, Peers: []peer.AddrInfo{*p},
		NetUID: recordtest.Network.Netuid, Genesis: recordtest.Network.Genesis,
		Validators: []keys.PublicKey{v}, Logger: nodetest.Quiet(), StatusEvery: time.Hour,
		Network: p2p.Config{Heartbeat: 100 * time.Millisecond, ReconnectInterval: 200 * time.Millisecond, StatusInterval: time.Hour},
	})
	if err != nil {
		t.Fatal(err)
	}
	var last uint64
	reported := false
	for {
		changed := n.Network().Changed()
		if h, err := n.Store().Head(v); err == nil && (!reported || h.Block.Height > last) {
			st := n.Network().Stats()
			fmt.Printf("ack %d %s %d %d\n", h.Block.Height, h.Block.CID, st.StoredFromGossip, st.StoredFromSync)
			last, reported = h.Block.Height, true
		}
		select {
		case <-changed:
		case <-time.After(100 * time.Millisecond):
		}
	}
}
