package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestConsistencyAboveHead: a --to above the validator's head is bad
// usage naming the head, as verify --from does, not a bare "not found";
// a validator the store has no chain of is named as such.
func TestConsistencyAboveHead(t *testing.T) {
	t.Parallel()
	dir, spec := builtLedger(t)
	v := verifytest.Key(0).Public().String()
	code, _, errs := ledgerRun(t, "consistency", "--data", dir, "--validator", v, "--from", "1", "--to", "250")
	want := "--to 250 is above the head of validator " + v + " (height " + strconv.Itoa(spec.Blocks-1) + ")"
	if code != exitUsage || !strings.Contains(errs, want) {
		t.Errorf("--to 250: exit %d, %q; want exit 2 with %q", code, errs, want)
	}
	other := verifytest.Key(spec.Validators).Public().String()
	code, _, errs = ledgerRun(t, "consistency", "--data", dir, "--validator", other, "--from", "0", "--to", "1")
	if code != exitUsage || !strings.Contains(errs, "the store has no chain of validator "+other) {
		t.Errorf("validator without a chain: exit %d, %q", code, errs)
	}
}
