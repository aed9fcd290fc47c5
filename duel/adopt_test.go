package duel

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/ipfs/go-cid"
	"github.com/multiformats/go-multihash"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
)

var peerKey = keys.PublicKey{0x70, 0x65, 0x65, 0x72}

// crowning returns a duel result the contender won and its CID.
func crowning(t testing.TB) (Result, cid.Cid) {
	t.Helper()
	r := recomputed(t, vectorDuels[0])
	if r.Winner != Contender.String() {
		t.Fatalf("vector duel 0: winner %s, want the contender", r.Winner)
	}
	_, c, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	return r, c
}

func TestAdoptTakesTheSourcesFrontier(t *testing.T) {
	p := DefaultFrontierParams()
	src, c := crowning(t)
	a, err := NewAdopt(p, peerKey, c, src)
	if err != nil {
		t.Fatal(err)
	}
	// The frontier is the one Apply leaves after the source, whatever
	// frontier the source ran under.
	before := Frontier{Champion: src.Champion, SetPPM: src.RatioPPM, SetAt: src.Start.Number}
	after, err := p.Apply(before, src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Adopted(a)
	if err != nil {
		t.Fatal(err)
	}
	if got.Champion.Hotkey != after.Champion.Hotkey || !bytes.Equal(got.Champion.ModelHash, after.Champion.ModelHash) || got.SetPPM != after.SetPPM || got.SetAt != after.SetAt {
		t.Fatalf("adopted %+v, Apply leaves %+v", got, after)
	}
	if got.SetPPM <= p.Floor() {
		t.Fatalf("the source's geometric mean %d gives the floor: the test shows nothing", src.GeoMeanPPM)
	}
	if a.From != peerKey || !a.Source.Cid.Equals(c) {
		t.Fatalf("adopt names %s in %s, want %s in %s", a.Source.Cid, a.From, c, peerKey)
	}
	if err := a.CheckSource(p, src); err != nil {
		t.Fatalf("its own source: %v", err)
	}

	b, ac, err := EncodeAdopt(a)
	if err != nil {
		t.Fatal(err)
	}
	if !ac.Equals(codec.Sum(b)) {
		t.Fatal("CID is not the hash of the bytes")
	}
	back, err := DecodeAdopt(b)
	if err != nil {
		t.Fatal(err)
	}
	if again, _, err := EncodeAdopt(back); err != nil || !bytes.Equal(again, b) {
		t.Fatalf("re-encoding differs (%v)", err)
	}
}

func TestAdoptCheckSourceNamesTheDifference(t *testing.T) {
	p := DefaultFrontierParams()
	src, c := crowning(t)
	a, err := NewAdopt(p, peerKey, c, src)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		edit func(*Adopt)
		want string
	}{
		"ratio":           {func(a *Adopt) { a.SetPPM-- }, "set_ppm is"},
		"start":           {func(a *Adopt) { a.SetAt++ }, "set_at is block"},
		"champion":        {func(a *Adopt) { a.Champion.Hotkey[0] ^= 1 }, "but the source crowned"},
		"champion model":  {func(a *Adopt) { a.Champion.ModelHash = HexBytes{1} }, "but the source crowned"},
		"champion before": {func(a *Adopt) { a.Champion = cloneSide(src.Champion) }, "but the source crowned"},
	} {
		b := a
		b.Champion = cloneSide(a.Champion)
		tc.edit(&b)
		err := b.CheckSource(p, src)
		if !errors.Is(err, ErrFrontier) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want ErrFrontier saying %q", name, err, tc.want)
		}
	}

	lost := recomputed(t, vectorDuels[1])
	if lost.Winner != Champion.String() {
		t.Fatalf("vector duel 1: winner %s, want the champion", lost.Winner)
	}
	if _, err := NewAdopt(p, peerKey, c, lost); err == nil || !strings.Contains(err.Error(), "did not win") {
		t.Errorf("adopting from a duel the champion kept: err = %v", err)
	}
	if err := a.CheckSource(p, lost); err == nil {
		t.Error("a source the contender lost was taken")
	}
}

func TestAdoptedRefusesARatioBelowTheFloor(t *testing.T) {
	p := DefaultFrontierParams()
	src, c := crowning(t)
	a, err := NewAdopt(p, peerKey, c, src)
	if err != nil {
		t.Fatal(err)
	}
	a.SetPPM = p.Floor() - 1
	if err := a.Check(); err != nil {
		t.Fatalf("a ratio between 1/2 and the floor is well formed (the floor is a network constant): %v", err)
	}
	if _, err := p.Adopted(a); !errors.Is(err, ErrFrontier) || !strings.Contains(err.Error(), "below the floor") {
		t.Errorf("err = %v, want one saying the ratio is below the floor", err)
	}
	a.SetPPM = p.Floor()
	if f, err := p.Adopted(a); err != nil || f.SetPPM != p.Floor() {
		t.Errorf("at the floor: %+v, %v", f, err)
	}
}

func TestDecodeAdoptRejects(t *testing.T) {
	p := DefaultFrontierParams()
	src, c := crowning(t)
	good, err := NewAdopt(p, peerKey, c, src)
	if err != nil {
		t.Fatal(err)
	}
	digest := [32]byte{1}
	sha, _ := multihash.Encode(digest[:], multihash.SHA2_256)
	for name, tc := range map[string]struct {
		edit func(*Adopt)
		want string
	}{
		"type":          {func(a *Adopt) { a.Type = ResultType }, `type "duel"`},
		"version":       {func(a *Adopt) { a.Version = 2 }, "version 2"},
		"no champion":   {func(a *Adopt) { a.Champion.Hotkey = keys.PublicKey{} }, "no champion"},
		"long model":    {func(a *Adopt) { a.Champion.ModelHash = make(HexBytes, MaxModelHash+1) }, "65 bytes"},
		"no validator":  {func(a *Adopt) { a.From = keys.PublicKey{} }, "no validator"},
		"ratio low":     {func(a *Adopt) { a.SetPPM = PPM/2 - 1 }, "set_ppm 499999 outside [500000, 999999]"},
		"ratio one":     {func(a *Adopt) { a.SetPPM = PPM }, "set_ppm 1000000 outside [500000, 999999]"},
		"null source":   {func(a *Adopt) { a.Source = codec.Link{} }, "null link"},
		"raw source":    {func(a *Adopt) { a.Source = codec.LinkTo(cid.NewCidV1(cid.Raw, sha)) }, "not a CIDv1 dag-cbor"},
		"source as CID": {func(a *Adopt) { a.Source = codec.LinkTo(cid.NewCidV0(sha)) }, "not a CIDv1 dag-cbor"},
	} {
		a := good
		a.Champion = cloneSide(good.Champion)
		tc.edit(&a)
		if _, _, err := EncodeAdopt(a); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: encode: err = %v, want ErrMalformed saying %q", name, err, tc.want)
		}
		// The same record written without Encode's check must not decode.
		b, err := codec.Marshal(a)
		if err != nil {
			continue // not even encodable (a null link is, a missing one is not)
		}
		if _, err := DecodeAdopt(b); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: decode: err = %v, want ErrMalformed saying %q", name, err, tc.want)
		}
	}

	// The limits themselves are well formed.
	for name, edit := range map[string]func(*Adopt){
		"64-byte model hash": func(a *Adopt) { a.Champion.ModelHash = make(HexBytes, MaxModelHash) },
		"no model hash":      func(a *Adopt) { a.Champion.ModelHash = nil },
		"ratio 1/2":          func(a *Adopt) { a.SetPPM = PPM / 2 },
		"ratio 999999":       func(a *Adopt) { a.SetPPM = MaxRatioPPM },
	} {
		a := good
		edit(&a)
		b, _, err := EncodeAdopt(a)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if _, err := DecodeAdopt(b); err != nil {
			t.Errorf("%s: decode: %v", name, err)
		}
	}

	b, _, err := EncodeAdopt(good)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := codec.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["extra"] = uint64(1)
	extra, err := codec.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeAdopt(extra); !errors.Is(err, ErrMalformed) {
		t.Errorf("unknown key: err = %v", err)
	}
	delete(m, "extra")
	delete(m, "from")
	missing, err := codec.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeAdopt(missing); !errors.Is(err, ErrMalformed) {
		t.Errorf("missing key: err = %v", err)
	}
	if _, err := DecodeAdopt(make([]byte, MaxAdoptBytes+1)); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "max 1024") {
		t.Errorf("oversized: err = %v", err)
	}
}

func FuzzDecodeAdopt(f *testing.F) {
	src, c := crowning(f)
	a, err := NewAdopt(DefaultFrontierParams(), peerKey, c, src)
	if err != nil {
		f.Fatal(err)
	}
	b, _, err := EncodeAdopt(a)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte{0xa0})
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := DecodeAdopt(data)
		if err != nil {
			return
		}
		again, _, err := EncodeAdopt(a)
		if err != nil {
			t.Fatalf("decoded record does not encode: %v", err)
		}
		if !bytes.Equal(again, data) {
			t.Fatalf("accepted bytes that are not the record's encoding")
		}
	})
}
