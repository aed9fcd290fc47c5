package main

import (
	"testing"

	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/node/nodetest"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestReviewRunningNodeStoreSpellings: --data naming a running node's
// store directory reads a checkpoint however the path is spelled: a
// trailing slash (what a shell's completion adds) or a trailing "/." is
// the same store directory of the same node, not a store "in use" with
// no node to ask.
func TestReviewRunningNodeStoreSpellings(t *testing.T) {
	t.Parallel()
	c := nodetest.New(t, 1, nodetest.Options{Observers: []int{0}})
	n := c.Start(0)
	if _, err := verifytest.Build(n.Store(), verifytest.Spec{Validators: 1, Blocks: 2, PerBlock: 2}); err != nil {
		t.Fatal(err)
	}
	sd := node.StoreDir(c.Configs[0].DataDir)
	for _, data := range []string{sd, sd + "/", sd + "/."} {
		if code, out, errs := ledgerRun(t, "verify", "--data", data, "--no-reexec", "--json"); code != 0 {
			t.Errorf("verify --data %s of a running node: exit %d: %s %s", data, code, out, errs)
		}
	}
}
