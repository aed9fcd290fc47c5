package node_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	ma "github.com/multiformats/go-multiaddr"

	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/node"
)

// A node started with a mistyped genesis hash binds its new store to the
// wrong chain; restarted with the right one before it took any block, it
// starts (the store held nothing of the wrong chain) and says so.
func TestNodeRestartedWithTheRightGenesisRebindsItsEmptyStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	start := func(genesis byte, log *bytes.Buffer) *node.Node {
		t.Helper()
		n, err := node.Start(node.Config{
			DataDir: dir, NetUID: 7, Genesis: record.Hash{genesis}, StatusEvery: time.Hour,
			Listen: []ma.Multiaddr{ma.StringCast("/ip4/127.0.0.1/tcp/0")},
			Logger: slog.New(slog.NewTextHandler(log, nil)),
		})
		if err != nil {
			t.Fatalf("start with genesis %x...: %v", genesis, err)
		}
		return n
	}
	var first, second bytes.Buffer
	n := start(0xaa, &first)
	if got := n.Store().Network(); got.Genesis != (record.Hash{0xaa}) {
		t.Fatalf("first start: store of %s", got)
	}
	n.Close()
	n = start(0xbb, &second)
	defer n.Close()
	if got := n.Store().Network(); got.Genesis != (record.Hash{0xbb}) || got.Netuid != 7 {
		t.Fatalf("restarted with another genesis: store of %s", got)
	}
	if log := second.String(); !strings.Contains(log, "now bound to this node's") || !strings.Contains(log, "chain aa00000000000000") {
		t.Errorf("the restart does not say the store changed network:\n%s", log)
	}
	if strings.Contains(first.String(), "now bound") {
		t.Errorf("the first start says the store changed network:\n%s", first.String())
	}
}
