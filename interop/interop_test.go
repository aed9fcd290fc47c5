package interop

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/node/nodetest"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// jsResult is what subscribe.mjs prints about the block it received.
type jsResult struct {
	Ready        string `json:"ready"`
	Published    string `json:"published"`
	Error        string `json:"error"`
	BlockCID     string `json:"block_cid"`
	MessageID    string `json:"message_id"`
	Validator    string `json:"validator"`
	Height       uint64 `json:"height"`
	Transcripts  int    `json:"transcripts"`
	Objects      int    `json:"objects"`
	FirstEnv     string `json:"first_transcript_challenge_env"`
	CheckpointSz uint64 `json:"checkpoint_size"`
}

func TestJSNodeReceivesABlock(t *testing.T) {
	if os.Getenv("LEDGER_INTEROP_P2P") != "1" {
		t.Skip("set LEDGER_INTEROP_P2P=1 (make interop-p2p) to run the js-libp2p interop test")
	}
	if _, err := os.Stat(filepath.Join("node_modules", "libp2p")); err != nil {
		t.Fatal("interop/node_modules is missing: run npm ci in interop/ (make interop-p2p does)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const netuid = interopNetuid
	alice, _ := keys.FromURI("//Alice")
	goNode, err := node.Start(node.Config{
		DataDir: t.TempDir(), Key: alice, NetUID: netuid, Genesis: interopNetwork.Genesis, Logger: nodetest.Quiet(), StatusEvery: time.Hour,
		Listen: []ma.Multiaddr{ma.StringCast("/ip4/127.0.0.1/tcp/0")},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer goNode.Close()
	addrs, err := peer.AddrInfoToP2pAddrs(&peer.AddrInfo{ID: goNode.ID(), Addrs: goNode.AddrInfo().Addrs})
	if err != nil {
		t.Fatal(err)
	}

	// A block of another validator, which the js node publishes back.
	bob, _ := keys.FromURI("//Bob")
	bobMsg := foreignBlock(t, bob)
	publishFile := filepath.Join(t.TempDir(), "publish.hex")
	if err := os.WriteFile(publishFile, []byte(hex.EncodeToString(bobMsg)), 0o644); err != nil {
		t.Fatal(err)
	}

	cmd := exec.CommandContext(ctx, "node", "subscribe.mjs", addrs[0].String(), "7", "45000", publishFile)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start node (is Node.js installed?): %v", err)
	}
	defer cmd.Wait()
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	next := func() jsResult {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("js node ended without output (%v)", lines.Err())
		}
		var r jsResult
		if err := json.Unmarshal(lines.Bytes(), &r); err != nil {
			t.Fatalf("js node printed %q: %v", lines.Text(), err)
		}
		if r.Error != "" {
			t.Fatalf("js node: %s", r.Error)
		}
		return r
	}

	ready := next()
	jsID, err := peer.Decode(ready.Ready)
	if err != nil {
		t.Fatalf("js peer ID %q: %v", ready.Ready, err)
	}
	// Publish once the Go node counts the JS node as a topic peer.
	for !contains(goNode.Network().TopicPeers(), jsID) {
		select {
		case <-ctx.Done():
			t.Fatal("the js node never joined the Go node's blocks topic")
		case <-time.After(50 * time.Millisecond):
		}
	}
	ts := []record.Transcript{recordtest.Transcript(alice.Public(), 0, 0), recordtest.Transcript(alice.Public(), 1, 0)}
	rc, err := goNode.Append(ctx, recordtest.Anchor(1), ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := next()

	// What the Go side published, recomputed here.
	b, err := goNode.Store().BlockAt(alice.Public(), rc.Block.Height)
	if err != nil {
		t.Fatal(err)
	}
	var objs [][]byte
	for _, l := range wire.Links(b.Block) {
		raw, err := goNode.Store().Object(l)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, raw)
	}
	msg, err := wire.EncodeBlockMessage(b.Raw, objs)
	if err != nil {
		t.Fatal(err)
	}
	pub := alice.Public()
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"block CID", got.BlockCID, rc.Block.CID.String()},
		{"message ID", got.MessageID, hex.EncodeToString(codec.Sum(msg).Bytes())},
		{"validator", got.Validator, hex.EncodeToString(pub[:])},
		{"height", got.Height, rc.Block.Height},
		{"transcripts", got.Transcripts, 2},
		{"objects", got.Objects, 2},
		{"first transcript env", got.FirstEnv, "mult8"},
		{"checkpoint size", got.CheckpointSz, rc.Checkpoint.Size},
	} {
		if c.got != c.want {
			t.Errorf("js node saw %s %v, Go published %v", c.what, c.got, c.want)
		}
	}

	// The other way: the Go node accepts and stores what js-libp2p publishes.
	published := next()
	if want := hex.EncodeToString(codec.Sum(bobMsg).Bytes()); published.Published != want {
		t.Errorf("js node published message %s, want %s", published.Published, want)
	}
	if err := goNode.WaitHead(ctx, bob.Public(), 0); err != nil {
		t.Fatalf("the Go node did not store the block the js node published: %v (%+v)", err, goNode.Network().Stats())
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("js node exit: %v", err)
	}
}

// foreignBlock writes one block of key in a store of its own and returns
// its gossip message.
func foreignBlock(t *testing.T, key *keys.Hotkey) []byte {
	t.Helper()
	s, err := ledger.Open(t.TempDir(), ledger.WithNetwork(interopNetwork))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, err := s.NewAppender(key)
	if err != nil {
		t.Fatal(err)
	}
	ts := []record.Transcript{recordtest.Transcript(key.Public(), 0, 0)}
	rc, err := a.Append(context.Background(), recordtest.Anchor(1), ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Block(rc.Block.CID)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := s.Object(rc.Transcripts[0])
	if err != nil {
		t.Fatal(err)
	}
	msg, err := wire.EncodeBlockMessage(b.Raw, [][]byte{raw})
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

func contains(ps []peer.ID, p peer.ID) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

// interopNetwork is the network of the test's blocks: its nodes' subnet.
const interopNetuid = 7

var interopNetwork = record.Network{Genesis: recordtest.Network.Genesis, Netuid: interopNetuid}
