package main

import (
	"bytes"
	"regexp"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/p2p"
)

// `ledger peers` shows the chain each peer said it is of, by the first
// digits of its genesis hash, and "unknown" for a peer of no network yet.
func TestPeersShowTheirGenesis(t *testing.T) {
	ids := make([]peer.ID, 2)
	for i, s := range []string{"12D3KooWD3eckifWpRn9wQpMG9R9hX3sD158z7EqHWmweQAJU5SA", "12D3KooWHHzSeKaY8xuZVzkLbKFfvNgPPeKhFBGrMbNzbm5akpqu"} {
		id, err := peer.Decode(s)
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = id
	}
	var g record.Hash
	for i := range g {
		g[i] = byte(i)
	}
	st := node.Status{
		PeerID: ids[0].String(), NetUID: 120, Genesis: &g, UpdatedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		Peers: []p2p.PeerInfo{{ID: ids[0], Genesis: &g, Chains: 3}, {ID: ids[1]}},
	}
	var out bytes.Buffer
	if err := printStatus(&out, st); err != nil {
		t.Fatal(err)
	}
	for _, re := range []string{
		`PEER\s+VALIDATOR\s+GENESIS\s+CHAINS\s+ADDRESS`,
		ids[0].String() + `\s+-\s+0001020304050607\s+3\s`,
		ids[1].String() + `\s+-\s+unknown\s+0\s`,
	} {
		if !regexp.MustCompile(re).MatchString(out.String()) {
			t.Errorf("output does not match %s:\n%s", re, out.String())
		}
	}
}
