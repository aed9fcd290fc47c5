package node_test

import (
	"context"
	"os"
	"testing"
	"time"

	ma "github.com/multiformats/go-multiaddr"

	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/node/nodetest"
)

// TestMDNSFindsPeers starts two nodes with no static peers and mDNS on:
// they must find and connect to each other. mDNS multicasts on the
// machine's interfaces, beyond loopback, so it runs only when asked
// (LEDGER_TEST_MDNS=1).
func TestMDNSFindsPeers(t *testing.T) {
	if os.Getenv("LEDGER_TEST_MDNS") != "1" {
		t.Skip("mDNS multicasts beyond loopback; set LEDGER_TEST_MDNS=1 to run")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var ns []*node.Node
	for range 2 {
		n, err := node.Start(node.Config{DataDir: t.TempDir(), MDNS: true, NetUID: 4242, Logger: nodetest.Quiet(),
			Listen: []ma.Multiaddr{ma.StringCast("/ip4/127.0.0.1/tcp/0")}})
		if err != nil {
			t.Fatal(err)
		}
		defer n.Close()
		ns = append(ns, n)
	}
	for len(ns[0].Network().Host().Network().ConnsToPeer(ns[1].ID())) == 0 {
		select {
		case <-ctx.Done():
			t.Fatal("the nodes never found each other by mDNS")
		case <-time.After(50 * time.Millisecond):
		}
	}
}
