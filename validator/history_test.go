package validator_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/duel/dueltest"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/validator"
)

// TestHistoryFoldsAdoptions: an adoption record sets the frontier the next
// result of its champion must run under, and starts that reign; a result
// of another champion after it starts a reign at the floor as before; an
// adopted ratio below the floor fails the fold.
func TestHistoryFoldsAdoptions(t *testing.T) {
	t.Parallel()
	s := openStore(t, t.TempDir())
	defer s.Close()
	p := duel.DefaultFrontierParams()
	side := func(b byte) duel.Side { return duel.Side{Hotkey: keys.PublicKey{b}, ModelHash: duel.HexBytes{b, b}} }
	a, b, c, d := side(0xa), side(0xb), side(0xc), side(0xd)

	// A peer's duel crowned b at block 10.
	peer := hotkey(t, "//Peer")
	crown := dueltest.Decided(t, a, b, 10, p.Floor(), duel.Win)
	crownRaw, crownCID, err := duel.Encode(crown)
	if err != nil {
		t.Fatal(err)
	}
	appendDecisions(t, s, peer, 10, crownRaw)
	adopt, err := duel.NewAdopt(p, peer.Public(), crownCID, crown)
	if err != nil {
		t.Fatal(err)
	}
	adopted, err := p.Adopted(adopt)
	if err != nil {
		t.Fatal(err)
	}
	ratioAt := func(h uint64) uint32 {
		r, err := p.Ratio(adopted, h)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if ratioAt(20) <= p.Floor() {
		t.Fatalf("the adopted ratio at block 20 is the floor: the test shows nothing")
	}

	t.Run("adopted reign", func(t *testing.T) {
		k := hotkey(t, "//Adopter")
		appendDecisions(t, s, k, 20, encodeAdopt(t, adopt))
		appendDecisions(t, s, k, 21, encode(t, dueltest.Decided(t, b, c, 21, ratioAt(21), duel.Loss)))
		appendDecisions(t, s, k, 22, encode(t, dueltest.Decided(t, b, d, 22, ratioAt(22), duel.Loss)))
		h, err := validator.LoadHistory(s, k.Public(), p)
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Adoptions) != 1 || len(h.Entries) != 2 {
			t.Fatalf("%d adoptions and %d duels, want 1 and 2", len(h.Adoptions), len(h.Entries))
		}
		if e := h.Entries[1]; e.NewReign || e.Adopted != nil {
			t.Fatalf("the second duel of the adopted reign: new reign %v, adopted %+v", e.NewReign, e.Adopted)
		}
		e := h.Entries[0]
		if !e.NewReign || e.Adopted == nil || !e.Adopted.Record.Equals(h.Adoptions[0].Record) || e.Adopted.Adopt.SetPPM != adopt.SetPPM {
			t.Fatalf("the duel after the adoption: new reign %v, adopted %+v", e.NewReign, e.Adopted)
		}
		if h.Frontier.Champion.Hotkey != b.Hotkey || h.Frontier.SetPPM != adopt.SetPPM || h.Frontier.SetAt != adopt.SetAt {
			t.Fatalf("frontier %+v, want the adopted one", h.Frontier)
		}
		if r, _ := h.Ratio(30); r != ratioAt(30) {
			t.Fatalf("ratio at block 30: %d, want %d", r, ratioAt(30))
		}
	})

	t.Run("adoption alone", func(t *testing.T) {
		k := hotkey(t, "//Waiting")
		appendDecisions(t, s, k, 20, encodeAdopt(t, adopt))
		h, err := validator.LoadHistory(s, k.Public(), p)
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Entries) != 0 || h.Frontier == nil || h.Frontier.Champion.Hotkey != b.Hotkey {
			t.Fatalf("%d duels, frontier %+v: want none and the adopted frontier", len(h.Entries), h.Frontier)
		}
	})

	t.Run("floor after an adoption", func(t *testing.T) {
		// The duel after the adoption ran at the floor, as a validator
		// that did not fold the adoption would run it.
		k := hotkey(t, "//Lenient")
		appendDecisions(t, s, k, 20, encodeAdopt(t, adopt))
		appendDecisions(t, s, k, 21, encode(t, dueltest.Decided(t, b, c, 21, p.Floor(), duel.Loss)))
		_, err := validator.LoadHistory(s, k.Public(), p)
		if !errors.Is(err, validator.ErrHistory) || !strings.Contains(err.Error(), "ppm was in force") {
			t.Fatalf("err = %v, want ErrHistory naming the ratio in force", err)
		}
	})

	t.Run("another champion after an adoption", func(t *testing.T) {
		// b left before the duel: d's reign starts at the floor, and
		// owes nothing to the adoption.
		k := hotkey(t, "//Vacancy")
		appendDecisions(t, s, k, 20, encodeAdopt(t, adopt))
		appendDecisions(t, s, k, 21, encode(t, dueltest.Decided(t, d, c, 21, p.Floor(), duel.Loss)))
		h, err := validator.LoadHistory(s, k.Public(), p)
		if err != nil {
			t.Fatal(err)
		}
		if e := h.Entries[0]; !e.NewReign || e.Adopted != nil || h.Frontier.SetPPM != p.Floor() {
			t.Fatalf("new reign %v, adopted %+v, frontier %+v", e.NewReign, e.Adopted, h.Frontier)
		}
	})

	t.Run("below the floor", func(t *testing.T) {
		k := hotkey(t, "//Low")
		low := adopt
		low.SetPPM = p.Floor() - 1
		appendDecisions(t, s, k, 20, encodeAdopt(t, low))
		_, err := validator.LoadHistory(s, k.Public(), p)
		if !errors.Is(err, validator.ErrHistory) || !strings.Contains(err.Error(), "below the floor") {
			t.Fatalf("err = %v, want ErrHistory saying the ratio is below the floor", err)
		}
	})
}

func encode(t testing.TB, r duel.Result) []byte {
	t.Helper()
	b, _, err := duel.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func encodeAdopt(t testing.TB, a duel.Adopt) []byte {
	t.Helper()
	b, _, err := duel.EncodeAdopt(a)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// appendDecisions appends a block of k's chain anchored at chain block
// number holding the decisions given.
func appendDecisions(t testing.TB, s *ledger.Store, k *keys.Hotkey, number uint64, decisions ...[]byte) {
	t.Helper()
	app, err := s.NewAppender(k)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	if _, err := app.Append(context.Background(), record.Anchor{Number: number, Hash: record.Hash{byte(number)}}, nil, decisions); err != nil {
		t.Fatal(err)
	}
}
