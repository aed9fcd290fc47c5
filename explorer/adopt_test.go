package explorer_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/duel/dueltest"
	"github.com/affine-ledger/ledger/explorer"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/validator"
)

// TestValidatorFrontierFollowsAdoption: a validator whose reign began with
// an adoption record has the adopted ratio in the explorer, as in
// validator.History, and no history error.
func TestValidatorFrontierFollowsAdoption(t *testing.T) {
	t.Parallel()
	s, err := ledger.Open(t.TempDir(), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := duel.DefaultFrontierParams()
	side := func(b byte) duel.Side { return duel.Side{Hotkey: keys.PublicKey{b}, ModelHash: duel.HexBytes{b}} }
	key := func(uri string) *keys.Hotkey {
		k, err := keys.FromURI(uri)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	put := func(k *keys.Hotkey, number uint64, raw []byte) {
		app, err := s.NewAppender(k)
		if err != nil {
			t.Fatal(err)
		}
		defer app.Close()
		if _, err := app.Append(context.Background(), record.Anchor{Number: number, Hash: record.Hash{byte(number)}}, nil, [][]byte{raw}); err != nil {
			t.Fatal(err)
		}
	}
	peer, follower := key("//Peer"), key("//Follower")
	crown := dueltest.Decided(t, side(0xa), side(0xb), 10, p.Floor(), duel.Win)
	raw, c, err := duel.Encode(crown)
	if err != nil {
		t.Fatal(err)
	}
	put(peer, 10, raw)
	a, err := duel.NewAdopt(p, peer.Public(), c, crown)
	if err != nil {
		t.Fatal(err)
	}
	raw, _, err = duel.EncodeAdopt(a)
	if err != nil {
		t.Fatal(err)
	}
	put(follower, 20, raw)
	f, err := p.Adopted(a)
	if err != nil {
		t.Fatal(err)
	}
	ratio, err := p.Ratio(f, 21)
	if err != nil {
		t.Fatal(err)
	}
	raw, _, err = duel.Encode(dueltest.Decided(t, side(0xb), side(0xc), 21, ratio, duel.Loss))
	if err != nil {
		t.Fatal(err)
	}
	put(follower, 21, raw)

	h, err := explorer.Handler(s, explorer.Options{Refresh: -1, Tempo: 100})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	var v explorer.ValidatorView
	getJSONAt(t, srv.URL, "/api/v1/validators/"+follower.Public().String(), &v)
	hist, err := validator.LoadHistory(s, follower.Public(), p)
	if err != nil {
		t.Fatal(err)
	}
	want, err := hist.Ratio(21)
	if err != nil {
		t.Fatal(err)
	}
	if v.HistoryError != "" || v.Frontier == nil || fmt.Sprint(*v.Frontier) != fmt.Sprint(*hist.Frontier) || v.RatioPPM != want || want <= p.Floor() {
		t.Fatalf("frontier %+v ratio %d (history error %q); validator.History says %+v ratio %d", v.Frontier, v.RatioPPM, v.HistoryError, hist.Frontier, want)
	}
}
