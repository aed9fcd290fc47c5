package verify_test

import (
	"testing"

	"github.com/affine-ledger/ledger/verify"
)

// A failure says where it is as precisely as it is known; one tied to no
// chain is the ledger's own, whether a store or an archive was audited
// (the reason says which).
func TestFailureString(t *testing.T) {
	for _, c := range []struct {
		f    verify.Failure
		want string
	}{
		{verify.Failure{Transcript: -1, Reason: "damaged store file 000005.sst"}, "ledger: damaged store file 000005.sst"},
		{verify.Failure{Validator: "5Grw", Height: 3, CID: "bafy", Transcript: -1, Reason: "bad signature"}, "validator 5Grw height 3 block bafy: bad signature"},
		{verify.Failure{Validator: "5Grw", Height: 3, CID: "bafy", Transcript: 2, Reason: "reward"}, "validator 5Grw height 3 block bafy transcript 2: reward"},
		{verify.Failure{Validator: "5Grw", Height: 0, CID: "bafy", Transcript: 0, Reason: "reward"}, "validator 5Grw height 0 block bafy transcript 0: reward"},
		{verify.Failure{CID: "bafy", Transcript: -1, Reason: "section 4 at byte 900: out of place"}, "ledger block bafy: section 4 at byte 900: out of place"},
	} {
		if got := c.f.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.f, got, c.want)
		}
	}
}
