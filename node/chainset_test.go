package node_test

import (
	"context"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/chain/local"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/node/nodetest"
	"github.com/affine-ledger/ledger/p2p"
)

// TestChainSetFollowsRegistrations: the set holds every hotkey
// registered on the subnet, with a validator permit or not, and a hotkey
// registered later once the next read has run.
func TestChainSetFollowsRegistrations(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	alice, _ := keys.FromURI("//Alice")
	bob, _ := keys.FromURI("//Bob")
	carol, _ := keys.FromURI("//Charlie")
	g := local.DefaultGenesis()
	g.Seed = t.Name()
	g.Neurons = []local.GenesisNeuron{{Hotkey: alice.Public(), Stake: 10, Validator: true}, {Hotkey: bob.Public(), Stake: 1}}
	c, err := local.New(local.Options{Genesis: &g, Manual: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	set := p2p.NewChangingSet()
	cs := node.ChainSet{Chain: c, Set: set, Every: 10 * time.Millisecond, Logger: nodetest.Quiet()}
	if err := cs.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if !set.Contains(alice.Public()) || !set.Contains(bob.Public()) || set.Contains(carol.Public()) || set.Len() != 2 {
		t.Fatalf("set after the first read: alice %v, bob (no permit) %v, carol (unregistered) %v, %d in all",
			set.Contains(alice.Public()), set.Contains(bob.Public()), set.Contains(carol.Public()), set.Len())
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- cs.Run(runCtx, nil) }()
	if _, err := c.Register(carol.Public(), 5, true); err != nil {
		t.Fatal(err)
	}
	for !set.Contains(carol.Public()) {
		if ctx.Err() != nil {
			t.Fatal("a hotkey registered later never joined the set")
		}
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
