package explorer_test

import (
	"net/http/httptest"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/explorer"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// TestLegacyStore serves a store written before block format 2 (`ledger
// serve` opens it read-only): a chain of format-1 blocks and a fork proof
// of format 1, whose blocks name no network and may be an honest
// validator's on two networks. The explorer lists the proof as valid, of
// format 1 and proving no equivocation, and does not mark the validator;
// it was listed as not valid (before that, it failed the forks list and
// the status with an error, and the head said equivocating).
func TestLegacyStore(t *testing.T) {
	t.Parallel()
	dir := ledgertest.UnboundStore(t)
	alice, err := keys.FromURI("//Alice")
	if err != nil {
		t.Fatal(err)
	}
	sign := func(timeMS int64) []byte { return recordtest.BlockV1(t, alice, timeMS) }
	b0, b1 := sign(1), sign(2)
	if _, err := ledgertest.LegacyChain(dir, b0); err != nil {
		t.Fatal(err)
	}
	pc, err := ledgertest.LegacyForkProof(dir, b0, b1)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ledger.OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h, err := explorer.Handler(r, explorer.Options{Refresh: -1})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	var forks explorer.Page[explorer.ForkRow]
	getJSONAt(t, srv.URL, "/api/v1/forks", &forks)
	if len(forks.Items) != 1 {
		t.Fatalf("forks %+v, want the format-1 proof", forks)
	}
	blocks := map[string]bool{codec.Sum(b0).String(): true, codec.Sum(b1).String(): true}
	if fr := forks.Items[0]; !fr.Valid || fr.Format != record.ForkProofFormatV1 || fr.ProvesEquivocation || fr.CID != pc.String() ||
		fr.Validator != alice.Public() || fr.Height != 0 || !blocks[fr.A] || !blocks[fr.B] || fr.A == fr.B {
		t.Errorf("fork row %+v: want proof %s of Alice's two blocks at height 0, valid, of format 1, proving no equivocation", fr, pc)
	}
	var st explorer.StatusView
	getJSONAt(t, srv.URL, "/api/v1/status", &st)
	if st.ForkProofs != 1 {
		t.Errorf("status counts %d fork proofs, want 1", st.ForkProofs)
	}
	var v explorer.ValidatorView
	getJSONAt(t, srv.URL, "/api/v1/validators/"+alice.Public().String(), &v)
	if v.Head.Equivocating {
		t.Error("a format-1 fork proof marks Alice as equivocating")
	}
}
