package verify_test

import (
	"bytes"
	"testing"

	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestVerifyCARDamagedValidatorKeyBlamesOnlyItsChain: one byte of the
// validator key inside chain 0's block 1 is changed so that the key sorts
// between chain 0's and chain 1's. The block no longer hashes to its CID
// (B1), so nothing it claims can be trusted: chains 1 and 2, whose
// sections are untouched, must not be blamed, and the archive holds 3
// chains. The reader instead takes the damaged claim as the start of a
// new chain (4 counted), then reports one "chains out of order" failure
// per later block of chain 0 and root failures naming the honest
// validators 1 and 2 (their roots are compared with the wrong chains).
func TestVerifyCARDamagedValidatorKeyBlamesOnlyItsChain(t *testing.T) {
	t.Parallel()
	// Chain i is sections 8i..8i+7: (block, transcript) x 4.
	header, secs := exportOf(t, verifytest.Spec{Validators: 3, Blocks: 4, PerBlock: 1, Envs: []string{"mult8"}})
	var vs [3]string
	for i := range vs {
		vs[i] = sectionBlock(t, secs[8*i]).Validator.String()
	}
	v := sectionBlock(t, secs[2]).Validator
	at := bytes.Index(secs[2][36:], v[:])
	if at < 0 {
		t.Fatal("validator key not found in the block's bytes")
	}
	secs[2] = bytes.Clone(secs[2])
	secs[2][36+at+31]++ // sorts just above validator 0, below validator 1
	rep := verifyCARBytes(joinCAR(header, secs)).rep
	if rep.OK {
		t.Fatal("damaged archive verified")
	}
	for _, f := range rep.Failures {
		if f.Validator == vs[1] || f.Validator == vs[2] {
			t.Errorf("failure blames an untouched chain: %v", f)
		}
	}
	if rep.Chains != 3 {
		t.Errorf("%d chains counted, the archive holds 3", rep.Chains)
	}
	if t.Failed() {
		for _, f := range rep.Failures {
			t.Logf("failure: %v", f)
		}
	}
}
