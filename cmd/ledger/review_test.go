package main

import (
	"testing"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestVerifyValidatorScope: --validator V audits V's chain only, yet every
// fork proof in the store is reported, so another validator's
// equivocation fails the audit of V's clean chain (exit 1).
func TestVerifyValidatorScope(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	s, err := ledger.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verifytest.Equivocate(s, verifytest.Key(1), 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	code, out, _ := ledgerRun(t, "verify", "--data", dir, "--validator", verifytest.Key(0).Public().String(), "--json", "--no-reexec")
	if code != 0 {
		t.Errorf("verify of validator 0's clean chain: exit %d, failures of another validator: %s", code, out)
	}
}
