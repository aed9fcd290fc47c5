package verify_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/verify"
)

// onlyStoreDamage checks that the report fails exactly once, as damage of
// the store (no validator), with each of want in the reason.
func onlyStoreDamage(t *testing.T, rep verify.Report, want ...string) {
	t.Helper()
	if rep.OK || len(rep.Failures) != 1 {
		t.Fatalf("want one failure, got ok=%v %+v", rep.OK, rep.Failures)
	}
	f := rep.Failures[0]
	if f.Validator != "" || f.CID != "" || f.Transcript != -1 {
		t.Fatalf("store damage blamed on validator %q block %q transcript %d: %s", f.Validator, f.CID, f.Transcript, f.Reason)
	}
	for _, w := range append([]string{"store damage: "}, want...) {
		if !strings.Contains(f.Reason, w) {
			t.Fatalf("reason %q does not say %q", f.Reason, w)
		}
	}
}

// withStoreDamage checks that the report's first failure is the store's
// damage, with want in the reason, and returns the report without it.
func withStoreDamage(t *testing.T, rep verify.Report, want string) verify.Report {
	t.Helper()
	if len(rep.Failures) == 0 || rep.Failures[0].Validator != "" || !strings.HasPrefix(rep.Failures[0].Reason, "store damage: ") || !strings.Contains(rep.Failures[0].Reason, want) {
		t.Fatalf("want the store's damage (%s) first, got %+v", want, rep.Failures)
	}
	rep.Failures = rep.Failures[1:]
	return rep
}

// TestStoredNodesChecked damages one stored Merkle node of validator 0's
// log that the store's open does not read (with five transcripts a block,
// the head's log of size 15 has the frontier [0,8) [8,12) [12,14) 14),
// or adds one: a full audit must report it as the store's damage, naming
// the node, and go on checking the chains, whose blocks are fine.
func TestStoredNodesChecked(t *testing.T) {
	t.Parallel()
	base, ks := build(t, small)
	v := ks[0].Public()
	cases := []damageCase{
		{"flipped level 1", func(dir string) error { return ledgertest.SetNode(dir, v, 1, 4, record.Hash{1}) },
			[]string{"Merkle node at level 1 index 4 of validator " + v.String(), "does not match the log", "at height 1"}},
		{"flipped level 2", func(dir string) error { return ledgertest.SetNode(dir, v, 2, 0, record.Hash{2}) },
			[]string{"Merkle node at level 2 index 0", "does not match the log", "at height 0"}},
		{"deleted", func(dir string) error { return ledgertest.Delete(dir, ledgertest.NodeKey(v, 1, 2)) },
			[]string{"holds no Merkle node at level 1 index 2", "at height 1 completed"}},
		{"short", func(dir string) error { return ledgertest.Set(dir, ledgertest.NodeKey(v, 2, 1), []byte{1, 2, 3}) },
			[]string{"level 2 index 1", "has 3 bytes"}},
		{"stray", func(dir string) error { return ledgertest.SetNode(dir, v, 1, 7, record.Hash{3}) },
			[]string{"level 1 index 7, of a subtree a log of 15 transcripts has not completed"}},
		{"stray level 0", func(dir string) error { return ledgertest.SetNode(dir, v, 0, 3, record.Hash{3}) },
			[]string{"which is no Merkle node's"}},
		// The leaf table, which proofs take level 0 from.
		{"leaf naming another transcript", func(dir string) error { return copyLeaf(dir, v, 7, 6) },
			[]string{"leaf 6 of validator " + v.String(), "names another transcript than the one block", "at height 1"}},
		{"leaf deleted", func(dir string) error { return ledgertest.Delete(dir, ledgertest.LeafKey(v, 3)) },
			[]string{"holds no leaf 3 of validator", "at height 0 appended"}},
		{"stray leaf", func(dir string) error { return copyLeaf(dir, v, 7, 20) },
			[]string{"a leaf at index 20", "which has 15 transcripts"}},
	}
	checkDamage(t, base, cases)
}

// damageCase damages a copy of a store of the small ledger, which an
// audit must report as the store's damage alone, saying each of want.
type damageCase struct {
	name   string
	damage func(dir string) error
	want   []string
}

// checkDamage runs each case on its own copy of base: the store's damage
// is the only failure, and every chain, block and transcript is checked.
func checkDamage(t *testing.T, base string, cases []damageCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := copyStore(t, base)
			if err := tc.damage(dir); err != nil {
				t.Fatal(err)
			}
			rep := verifyDir(t, dir, verify.StoreScope{})
			onlyStoreDamage(t, rep, tc.want...)
			if rep.Chains != 2 || rep.Blocks != 6 || rep.Transcripts != 30 {
				t.Fatalf("checked %d chains, %d blocks, %d transcripts; want every one: 2, 6, 30", rep.Chains, rep.Blocks, rep.Transcripts)
			}
		})
	}
}

// TestFromHeightChecksFrontier: the stored Merkle nodes a --from audit
// starts from must give the signed root of the block before. With five
// transcripts a block, block 1's log (size 10) has the frontier [0,8)
// [8,10); the head's (size 15) does not use node [8,10), so the store
// opens and only verify's check can notice. The block is signed and the
// store took it: the nodes are the store's damage, not the validator's
// fault at height 1 or 2.
func TestFromHeightChecksFrontier(t *testing.T) {
	t.Parallel()
	base, ks := build(t, small)
	v := ks[0].Public()
	t.Run("flipped", func(t *testing.T) {
		t.Parallel()
		dir := copyStore(t, base)
		if err := ledgertest.SetNode(dir, v, 1, 4, record.Hash{1}); err != nil {
			t.Fatal(err)
		}
		onlyStoreDamage(t, verifyDir(t, dir, verify.StoreScope{Validator: &v, From: 2}),
			"validator "+v.String()+"'s log", "frontier at size 10 (level 3 index 0, level 1 index 4)", "at height 1 says", "cannot start at height 2")
	})
	t.Run("deleted", func(t *testing.T) {
		t.Parallel()
		dir := copyStore(t, base)
		if err := ledgertest.Delete(dir, ledgertest.NodeKey(v, 1, 4)); err != nil {
			t.Fatal(err)
		}
		onlyStoreDamage(t, verifyDir(t, dir, verify.StoreScope{Validator: &v, From: 2}),
			"cannot give its frontier at size 10", "merkle node level 1 index 4", "cannot start at height 2")
	})
}

// copyLeaf sets v's leaf table entry at index to to the one at from.
func copyLeaf(dir string, v keys.PublicKey, from, to uint64) error {
	raw, ok, err := ledgertest.Get(dir, ledgertest.LeafKey(v, from))
	if err != nil || !ok {
		return fmt.Errorf("leaf %d: %v %v", from, ok, err)
	}
	return ledgertest.Set(dir, ledgertest.LeafKey(v, to), raw)
}
