package decisions_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/decisions"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/duel/dueltest"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/vtrust"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	r := dueltest.SampleResult(t)
	good, _, err := duel.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := decisions.Check(good); err != nil {
		t.Fatalf("a valid duel result: %v", err)
	}
	tampered := r
	tampered.Envs = append([]duel.EnvResult(nil), r.Envs...)
	tampered.Envs[0].Wins--
	tampered.Envs[0].Losses++
	bad, err := codec.Marshal(tampered)
	if err != nil {
		t.Fatal(err)
	}
	if err := decisions.Check(bad); !errors.Is(err, duel.ErrMalformed) || !strings.Contains(err.Error(), "wins") {
		t.Fatalf("a result whose counts do not recompute: %v", err)
	}
	other, err := codec.Marshal(map[string]any{"type": "note-v9", "text": "a future format"})
	if err != nil {
		t.Fatal(err)
	}
	if err := decisions.Check(other); err != nil {
		t.Fatalf("a record of another type: %v", err)
	}
	// An outcome record is held to its own format.
	half, err := codec.Marshal(map[string]any{"type": vtrust.OutcomeType, "verdict": "agree"})
	if err != nil {
		t.Fatal(err)
	}
	if err := decisions.Check(half); !errors.Is(err, vtrust.ErrMalformed) {
		t.Fatalf("an outcome missing its fields: %v", err)
	}
	c := codec.Sum(good)
	o, err := vtrust.NewOutcome(keys.PublicKey{1}, keys.PublicKey{2}, c, codec.Sum(bad), vtrust.Agree, "")
	if err != nil {
		t.Fatal(err)
	}
	ob, err := codec.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := decisions.Check(ob); err != nil {
		t.Fatalf("a valid outcome: %v", err)
	}
	// A duel result or outcome of a newer version is not held to this
	// release's format (auditors take it as opaque, spec/verify.md D2),
	// or nodes of two releases would disagree on which blocks to store;
	// one of this version, or of none, is.
	for _, c := range []struct {
		rec  map[string]any
		want error
	}{
		{map[string]any{"type": duel.ResultType, "v": duel.ResultVersion + 1, "winner": "whoever"}, nil},
		{map[string]any{"type": vtrust.OutcomeType, "v": vtrust.OutcomeVersion + 1, "verdict": "agree"}, nil},
		{map[string]any{"type": duel.ResultType, "v": duel.ResultVersion, "winner": "whoever"}, duel.ErrMalformed},
		{map[string]any{"type": duel.ResultType, "winner": "whoever"}, duel.ErrMalformed},
		{map[string]any{"type": vtrust.OutcomeType, "v": vtrust.OutcomeVersion, "verdict": "agree"}, vtrust.ErrMalformed},
	} {
		data, err := codec.Marshal(c.rec)
		if err != nil {
			t.Fatal(err)
		}
		if err := decisions.Check(data); c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%v: %v, want %v", c.rec, err, c.want)
		}
	}
	if err := decisions.Check([]byte{0xff}); !errors.Is(err, record.ErrMalformed) {
		t.Fatalf("garbage: %v", err)
	}
	if err := decisions.Check([]byte{0xf9, 0x3c, 0x00}); err == nil {
		t.Fatal("a float was accepted")
	}
}

func FuzzCheck(f *testing.F) {
	good, _, err := duel.Encode(dueltest.SampleResult(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte{0xa0})
	other, _ := codec.Marshal(map[string]any{"type": "duel"})
	f.Add(other)
	f.Fuzz(func(t *testing.T, data []byte) {
		if decisions.Check(data) != nil {
			return
		}
		if _, err := duel.Decode(data); err == nil {
			return
		}
		// Accepted without decoding as a duel result: it must not say it
		// is one of this version (or of none); a newer one is opaque.
		var v any
		if err := codec.Unmarshal(data, &v); err != nil {
			t.Fatalf("accepted a record the codec refuses: %v", err)
		}
		if m, ok := v.(map[any]any); ok && m["type"] == duel.ResultType {
			if version, ok := m["v"].(uint64); !ok || version <= duel.ResultVersion {
				t.Fatal("accepted a duel record of this version that does not decode")
			}
		}
	})
}
