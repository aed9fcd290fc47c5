package validator_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/validator"
	"github.com/affine-ledger/ledger/vtrust"
)

// sampleResult is a small valid duel result: the contender wins both envs
// at the first look.
func sampleResult(t testing.TB) duel.Result {
	t.Helper()
	rule := duel.Rule{ZMilli: 1960, Looks: []uint32{8, 16}, MaxChallenges: 40}
	in := duel.Input{
		Start:     duel.Anchor{Number: 12, Hash: duel.Hash{1}},
		Champion:  duel.Side{Hotkey: keys.PublicKey{1}, ModelHash: duel.HexBytes{0xa}},
		Contender: duel.Side{Hotkey: keys.PublicKey{2}, ModelHash: duel.HexBytes{0xb}},
		Rule:      rule, RatioPPM: 520_000,
	}
	for _, env := range []string{"abd", "mult8"} {
		e := duel.EnvInput{Env: env}
		for c := uint64(0); c < 8; c++ {
			id, err := challenge.Derive([32]byte{1}, [32]byte{9}, env, 1, c)
			if err != nil {
				t.Fatal(err)
			}
			e.Samples = append(e.Samples, duel.Sample{ID: id, Outcome: duel.Win})
		}
		in.Envs = append(in.Envs, e)
	}
	r, err := duel.Recompute(in)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCheckDecision(t *testing.T) {
	t.Parallel()
	r := sampleResult(t)
	good, _, err := duel.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := validator.CheckDecision(good); err != nil {
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
	if err := validator.CheckDecision(bad); !errors.Is(err, duel.ErrMalformed) || !strings.Contains(err.Error(), "wins") {
		t.Fatalf("a result whose counts do not recompute: %v", err)
	}
	other, err := codec.Marshal(map[string]any{"type": "note-v9", "text": "a future format"})
	if err != nil {
		t.Fatal(err)
	}
	if err := validator.CheckDecision(other); err != nil {
		t.Fatalf("a record of another type: %v", err)
	}
	// An outcome record is held to its own format.
	half, err := codec.Marshal(map[string]any{"type": vtrust.OutcomeType, "verdict": "agree"})
	if err != nil {
		t.Fatal(err)
	}
	if err := validator.CheckDecision(half); !errors.Is(err, vtrust.ErrMalformed) {
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
	if err := validator.CheckDecision(ob); err != nil {
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
		if err := validator.CheckDecision(data); c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%v: %v, want %v", c.rec, err, c.want)
		}
	}
	if err := validator.CheckDecision([]byte{0xff}); !errors.Is(err, record.ErrMalformed) {
		t.Fatalf("garbage: %v", err)
	}
	if err := validator.CheckDecision([]byte{0xf9, 0x3c, 0x00}); err == nil {
		t.Fatal("a float was accepted")
	}
}

// A store opened with CheckDecision refuses a peer's block whose duel
// result does not recompute.
func TestStoreRefusesBadDuelResult(t *testing.T) {
	t.Parallel()
	s := openStore(t, t.TempDir())
	defer s.Close()
	k := hotkey(t, "//Bob")
	r := sampleResult(t)
	r.GeoMeanPPM++
	bad, err := codec.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	h := record.Header{
		Format: record.BlockFormat, Net: recordtest.Network, Validator: k.Public(), TimeMS: 1,
		Transcripts: []codec.Link{}, Decisions: []codec.Link{codec.LinkTo(codec.Sum(bad))},
		Checkpoint: record.CheckpointOf(nil),
	}
	_, raw, _, err := record.Sign(h, k)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Put(raw, map[cid.Cid][]byte{codec.Sum(bad): bad})
	if !errors.Is(err, ledger.ErrInvalidBlock) || !strings.Contains(err.Error(), "geomean_ppm") {
		t.Fatalf("block with a bad duel result: %v", err)
	}
	// The same block with the result as recomputed is stored.
	r.GeoMeanPPM--
	good, _, err := duel.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	h.Decisions = []codec.Link{codec.LinkTo(codec.Sum(good))}
	if _, raw, _, err = record.Sign(h, k); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(raw, map[cid.Cid][]byte{codec.Sum(good): good}); err != nil {
		t.Fatalf("block with a good duel result: %v", err)
	}
}

func FuzzCheckDecision(f *testing.F) {
	good, _, err := duel.Encode(sampleResult(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte{0xa0})
	other, _ := codec.Marshal(map[string]any{"type": "duel"})
	f.Add(other)
	f.Fuzz(func(t *testing.T, data []byte) {
		if validator.CheckDecision(data) != nil {
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
