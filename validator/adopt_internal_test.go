package validator

import (
	"context"
	"strings"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/duel/dueltest"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// namedView is a consensus view that names one record as the crowning of
// every champion.
type namedView struct {
	from   keys.PublicKey
	record cid.Cid
}

func (namedView) ConsensusChampion() (duel.Side, bool)          { return duel.Side{}, false }
func (namedView) DethronePending(_, _ duel.Side, _ uint64) bool { return false }
func (n namedView) Crowning(duel.Side) (keys.PublicKey, cid.Cid, bool) {
	return n.from, n.record, n.record.Defined()
}

// TestCrowning: the duel result the consensus names is read from the store
// and must be a win of the champion; anything else is an error, not a
// reign at some other ratio.
func TestCrowning(t *testing.T) {
	t.Parallel()
	s, err := ledger.Open(t.TempDir(), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	k, err := keys.FromURI("//Peer")
	if err != nil {
		t.Fatal(err)
	}
	side := func(b byte) duel.Side { return duel.Side{Hotkey: keys.PublicKey{b}, ModelHash: duel.HexBytes{b}} }
	floor := duel.DefaultFrontierParams().Floor()
	won := dueltest.Decided(t, side(1), side(2), 10, floor, duel.Win)
	lost := dueltest.Decided(t, side(1), side(3), 11, floor, duel.Loss)
	var cids []cid.Cid
	app, err := s.NewAppender(k)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []duel.Result{won, lost} {
		raw, c, err := duel.Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := app.Append(context.Background(), record.Anchor{Number: r.Start.Number}, nil, [][]byte{raw}); err != nil {
			t.Fatal(err)
		}
		cids = append(cids, c)
	}
	app.Close()

	if _, ok, err := crowning(s, namedView{}, side(2)); ok || err != nil {
		t.Fatalf("no crowning named: ok %v, err %v", ok, err)
	}
	c, ok, err := crowning(s, namedView{k.Public(), cids[0]}, side(2))
	if err != nil || !ok || c.from != k.Public() || !c.source.Equals(cids[0]) || c.result.GeoMeanPPM != won.GeoMeanPPM {
		t.Fatalf("the win of 2: %+v %v %v", c, ok, err)
	}
	for name, tc := range map[string]struct {
		view     namedView
		champion duel.Side
		want     string
	}{
		"a loss":           {namedView{k.Public(), cids[1]}, side(3), "is not a win of it"},
		"another's win":    {namedView{k.Public(), cids[0]}, side(3), "is not a win of it"},
		"another model":    {namedView{k.Public(), cids[0]}, duel.Side{Hotkey: keys.PublicKey{2}}, "is not a win of it"},
		"not in the store": {namedView{k.Public(), codec.Sum([]byte("elsewhere"))}, side(2), "that crowned"},
	} {
		if _, ok, err := crowning(s, tc.view, tc.champion); ok || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: ok %v, err %v; want an error saying %q", name, ok, err, tc.want)
		}
	}
}
