package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestVerifyChainNamesCommitmentsItCannotCheck: a store that holds one of
// two committed validators' chains passes `verify --chain`, but the audit
// says which committed chain it did not see, where it used to report only
// the one it checked.
func TestVerifyChainNamesCommitmentsItCannotCheck(t *testing.T) {
	dir := t.TempDir()
	held, absent := verifytest.Key(0), verifytest.Key(1)
	c, spec := validatorsChain(t, []*keys.Hotkey{held, absent})
	ctx := context.Background()
	s, _ := openChainStore(t, dir, c)
	if _, err := verifytest.Build(s, verifytest.Spec{Validators: 1, Blocks: 2, PerBlock: 2, Envs: []string{"mult8"}}); err != nil {
		t.Fatal(err)
	}
	h, err := s.Head(held.Public())
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	vc := chain.ValidatorCommitment{Height: h.Block.Height, Size: h.Checkpoint.Size, Root: h.Checkpoint.Root}
	for _, k := range []*keys.Hotkey{held, absent} {
		if err := c.SetCommitment(ctx, k, vc.Fields()); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Advance(1); err != nil {
		t.Fatal(err)
	}

	out, code := runCLI(t, "verify", "--data", dir, "--chain", spec, "--no-reexec", "--json")
	if code != exitOK {
		t.Fatalf("verify --chain: exit %d, want 0 (a chain the store does not hold is no failure)\n%s", code, out)
	}
	var rep verify.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Commitments == nil || *rep.Commitments != 1 {
		t.Errorf("commitments %v, want 1 checked", rep.Commitments)
	}
	if !slices.Equal(rep.CommitmentsWithoutChain, []string{absent.Public().String()}) {
		t.Errorf("commitments_without_chain %v, want [%s]", rep.CommitmentsWithoutChain, absent.Public())
	}
	out, code = runCLI(t, "verify", "--data", dir, "--chain", spec, "--no-reexec")
	if code != exitOK || !strings.Contains(out, "on-chain commitments not checked, the store holds no chain of: "+absent.Public().String()) {
		t.Errorf("verify --chain: exit %d, the text does not name the unchecked commitment:\n%s", code, out)
	}
}
