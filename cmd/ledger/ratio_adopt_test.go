package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// appended is a decision record of one validator's chain, in a block
// anchored at chain block at.
type appended struct {
	uri string
	at  uint64
	raw []byte
}

func decisionStore(t *testing.T, recs ...appended) string {
	t.Helper()
	dir := t.TempDir()
	s, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, r := range recs {
		k, err := keys.FromURI(r.uri)
		if err != nil {
			t.Fatal(err)
		}
		a, err := s.NewAppender(k)
		if err != nil {
			t.Fatal(err)
		}
		_, err = a.Append(context.Background(), record.Anchor{Number: r.at}, nil, [][]byte{r.raw})
		a.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRatioShowAdoption: a reign that began with an adoption record shows
// its ratio from the record, and the record is checked against the duel
// result it names when the store holds it.
func TestRatioShowAdoption(t *testing.T) {
	t.Parallel()
	p := duel.DefaultFrontierParams()
	bob, err := keys.FromURI("//Bob")
	if err != nil {
		t.Fatal(err)
	}
	// Bob's duel crowned 2 at block 10 (ratio set: 875000); Alice adopts
	// it at block 20000 and duels 3 against 2 at 20001.
	crownRaw := ratioResult(t, 1, 2, 10, p.Floor(), true)
	crown, err := duel.Decode(crownRaw)
	if err != nil {
		t.Fatal(err)
	}
	adoption := func(edit func(*duel.Adopt)) []byte {
		a, err := duel.NewAdopt(p, bob.Public(), codec.Sum(crownRaw), crown)
		if err != nil {
			t.Fatal(err)
		}
		edit(&a)
		raw, _, err := duel.EncodeAdopt(a)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	at := func(setPPM uint32) uint32 { return p.RatioAt(setPPM, 20_001-10) }
	honest := adoption(func(*duel.Adopt) {})
	next := ratioResult(t, 2, 3, 20_001, at(875_000), false)

	dir := decisionStore(t, appended{"//Bob", 10, crownRaw}, appended{"//Alice", 20_000, honest}, appended{"//Alice", 20_001, next})
	alice, err := keys.FromURI("//Alice")
	if err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runRatio("--data", dir, "--validator", alice.Public().String(), "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var reps []struct {
		SetPPM    uint32 `json:"set_ppm"`
		RatioPPM  uint32 `json:"ratio_ppm"`
		Reigns    int    `json:"reigns"`
		Adoptions []struct {
			Source string `json:"source"`
			Adopt  struct {
				SetPPM uint32 `json:"set_ppm"`
				From   string `json:"from"`
			} `json:"adopt"`
		} `json:"adoptions"`
		Duels []struct {
			RatioPPM uint32          `json:"ratio_ppm"`
			Adopted  json.RawMessage `json:"adopted"`
		} `json:"duels"`
	}
	if err := json.Unmarshal([]byte(out), &reps); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	r := reps[0]
	if len(r.Adoptions) != 1 || r.Adoptions[0].Source != "checked" || r.Adoptions[0].Adopt.SetPPM != 875_000 || r.Adoptions[0].Adopt.From != bob.Public().String() {
		t.Fatalf("adoptions %+v, want one of 875000 from Bob, its source checked", r.Adoptions)
	}
	if len(r.Duels) != 1 || len(r.Duels[0].Adopted) == 0 || r.Duels[0].RatioPPM != at(875_000) || r.Reigns != 1 || r.SetPPM != 875_000 {
		t.Fatalf("report %+v, want one duel in an adopted reign at %d", r, at(875_000))
	}
	text, _, code := runRatio("--data", dir, "--validator", alice.Public().String())
	if code != exitOK || !strings.Contains(text, "adopted") || !strings.Contains(text, "(source checked)") {
		t.Fatalf("exit %d:\n%s", code, text)
	}

	// Without Bob's chain the source cannot be checked: the ratio still
	// follows from Alice's ledger alone.
	dir = decisionStore(t, appended{"//Alice", 20_000, honest}, appended{"//Alice", 20_001, next})
	if text, stderr, code := runRatio("--data", dir); code != exitOK || !strings.Contains(text, "(source absent)") {
		t.Fatalf("no source: exit %d: %s%s", code, text, stderr)
	}

	// An adoption above what its source set (the duel after it ran at that
	// ratio, so the fold alone passes) fails once the source is held.
	forged := adoption(func(a *duel.Adopt) { a.SetPPM = 900_000 })
	dir = decisionStore(t, appended{"//Bob", 10, crownRaw}, appended{"//Alice", 20_000, forged},
		appended{"//Alice", 20_001, ratioResult(t, 2, 3, 20_001, at(900_000), false)})
	if _, stderr, code := runRatio("--data", dir); code != exitCheckFail || !strings.Contains(stderr, "set_ppm is 900000, but the source sets 875000") {
		t.Fatalf("forged adoption: exit %d: %s", code, stderr)
	}
}
