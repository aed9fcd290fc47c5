package main

import (
	"testing"

	"github.com/affine-ledger/ledger/chain/local"
	"github.com/affine-ledger/ledger/epoch"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/validator"
)

// TestNodeServicesFollowConsensus: a node that both duels and computes
// epochs has its duel loop follow the consensus its own epochs compute
// (spec/validator.md, "Following consensus"); one that duels alone
// follows its ledger.
func TestNodeServicesFollowConsensus(t *testing.T) {
	t.Parallel()
	c, err := local.New(local.Options{Manual: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, epochs := range []bool{true, false} {
		cfg := node.Config{Key: recordtest.Hotkey(t, "//Alice")}
		if err := nodeServices(&cfg, c, nodeWork{evaluate: true, epochs: epochs}); err != nil {
			t.Fatal(err)
		}
		var v *validator.Service
		var d *epoch.Driver
		for _, s := range cfg.Services {
			switch s := s.(type) {
			case validator.Service:
				v = &s
			case *epoch.Driver:
				d = s
			}
		}
		switch {
		case v == nil || (epochs && d == nil) || (!epochs && d != nil):
			t.Fatalf("epochs %v: services %v", epochs, cfg.Services)
		case epochs && v.Config.Consensus != validator.ConsensusView(d):
			t.Fatalf("the duel loop follows %v, not the node's epochs %p", v.Config.Consensus, d)
		case !epochs && v.Config.Consensus != nil:
			t.Fatalf("with no epochs, the duel loop follows %v", v.Config.Consensus)
		}
	}
}
