package main

import (
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestDamagedNodeFailsVerifyAndProve: a stored Merkle node off the head's
// frontier (which the store's open reads) is damaged or gone. verify must
// fail (exit 1) naming the node as the store's damage, not a validator's;
// prove of a transcript whose path needs the node must fail as a check
// (exit 1), not as bad usage or a transcript the store does not hold. With
// four transcripts a block, the head's log of size 12 has the frontier
// [0,8) [8,12); node level 1 index 0 is leaves 0 and 1, on leaf 2's path.
func TestDamagedNodeFailsVerifyAndProve(t *testing.T) {
	t.Parallel()
	v := verifytest.Key(0).Public()
	for _, tc := range []struct {
		name   string
		damage func(dir string) error
		want   string
	}{
		{"flipped", func(dir string) error { return ledgertest.SetNode(dir, v, 1, 0, record.Hash{1}) }, "does not match the log"},
		{"deleted", func(dir string) error { return ledgertest.Delete(dir, ledgertest.NodeKey(v, 1, 0)) }, "holds no Merkle node at level 1 index 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir, _ := builtLedger(t)
			s, err := ledger.OpenReadOnly(dir)
			if err != nil {
				t.Fatal(err)
			}
			b, err := s.BlockAt(v, 0)
			s.Close()
			if err != nil {
				t.Fatal(err)
			}
			leaf2 := b.Transcripts[2].Cid.String()
			if err := tc.damage(dir); err != nil {
				t.Fatal(err)
			}
			code, out, errs := ledgerRun(t, "verify", "--data", dir, "--no-reexec")
			if code != exitCheckFail || !strings.Contains(out, "FAIL ledger: store damage: ") || !strings.Contains(out, tc.want) || !strings.Contains(out, "level 1 index 0") {
				t.Fatalf("verify: exit %d, %s %s; want exit 1 naming node level 1 index 0 as store damage", code, out, errs)
			}
			code, out, errs = ledgerRun(t, "prove", "--data", dir, "--transcript", leaf2)
			if code != exitCheckFail || !strings.Contains(errs, "store is inconsistent") || !strings.Contains(errs, leaf2) {
				t.Fatalf("prove: exit %d, %s %s; want exit 1 saying the store cannot prove %s", code, out, errs, leaf2)
			}
		})
	}
}
