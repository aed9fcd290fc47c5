package verify_test

import (
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestDecisionsTheStoresRefuseFail: the audit applies the stores' rule for
// decision records (package decisions, spec/verify.md D1): a record of type
// "duel" or "reexec" that does not decode as its version's fails the block,
// a version-less one counting as version 1's, while one of a later version
// or of another type is opaque. Otherwise a chain every node refuses would
// pass verify. The store refuses such a block, so the core is driven
// directly.
func TestDecisionsTheStoresRefuseFail(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		decision map[string]any
		fails    string // "" for none
	}{
		{"duel without a version", map[string]any{"type": "duel"}, "duel"},
		{"duel of version 0", map[string]any{"type": "duel", "v": 0}, "duel"},
		{"reexec of version 1 that does not decode", map[string]any{"type": "reexec", "v": 1}, "outcome"},
		{"duel of a later version", map[string]any{"type": "duel", "v": 99}, ""},
		{"another type", map[string]any{"type": "note", "text": "opaque"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := verifytest.Key(3)
			v := k.Public()
			d, err := codec.Marshal(c.decision)
			if err != nil {
				t.Fatal(err)
			}
			dc := codec.Sum(d)
			hd := record.Header{Format: record.BlockFormat, Net: recordtest.Network, Validator: v, TimeMS: 1, Anchor: recordtest.Anchor(1),
				Transcripts: []codec.Link{}, Decisions: []codec.Link{codec.LinkTo(dc)}, Checkpoint: record.CheckpointOf(nil)}
			_, braw, bc, err := record.Sign(hd, k)
			if err != nil {
				t.Fatal(err)
			}
			vf := verify.New(verify.Options{Challenges: verify.NewMemSet()})
			if err := vf.StartChain(v, verify.Genesis()); err != nil {
				t.Fatal(err)
			}
			vf.Block(braw, bc, func(cid.Cid) ([]byte, error) { return d, nil })
			if c.fails == "" {
				if r := vf.Report(); !r.OK {
					t.Fatalf("failed: %+v", r.Failures)
				}
				return
			}
			onlyFailure(t, vf.Report(), k, 0, bc, -1, c.fails)
		})
	}
}
