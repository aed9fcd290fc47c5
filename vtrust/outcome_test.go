package vtrust

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/fxamacker/cbor/v2"
	"github.com/ipfs/go-cid"
	"github.com/multiformats/go-multihash"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
)

func sampleOutcome(v Verdict, reason string) Outcome {
	o, err := NewOutcome(hotkey("auditor"), hotkey("validator"), cidOf("block"), cidOf("transcript"), v, reason)
	if err != nil {
		panic(err)
	}
	return o
}

func TestOutcomeRoundTrip(t *testing.T) {
	t.Parallel()
	for _, o := range []Outcome{
		sampleOutcome(Agree, ""),
		sampleOutcome(Disagree, "seed: no recorded anchor derives it"),
		sampleOutcome(Fault, "turn 0 reward: recorded 1, replay gives 0"),
		sampleOutcome(Fault, strings.Repeat("é", MaxReasonBytes/2)),
	} {
		b, c, err := o.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > MaxOutcomeBytes {
			t.Fatalf("%d bytes", len(b))
		}
		back, err := DecodeOutcome(b)
		if err != nil {
			t.Fatal(err)
		}
		b2, c2, err := back.Encode()
		if err != nil || !bytes.Equal(b, b2) || !c.Equals(c2) {
			t.Fatalf("re-encoding differs: %v", err)
		}
	}
}

func TestOutcomeRejects(t *testing.T) {
	t.Parallel()
	rawCID := cid.NewCidV1(cid.Raw, cidOf("x").Hash())
	blake, _ := multihash.Sum([]byte("x"), multihash.BLAKE2B_MIN+31, -1)
	cases := []struct {
		name string
		edit func(o *Outcome)
	}{
		{"type", func(o *Outcome) { o.Type = "duel" }},
		{"version", func(o *Outcome) { o.Version = 2 }},
		{"zero auditor", func(o *Outcome) { o.Auditor = keys.PublicKey{} }},
		{"zero validator", func(o *Outcome) { o.Validator = keys.PublicKey{} }},
		{"self audit", func(o *Outcome) { o.Auditor = o.Validator }},
		{"null block", func(o *Outcome) { o.Block = codec.Link{} }},
		{"null record", func(o *Outcome) { o.Record = codec.Link{} }},
		{"raw codec record", func(o *Outcome) { o.Record = codec.LinkTo(rawCID) }},
		{"blake2 record", func(o *Outcome) { o.Record = codec.LinkTo(cid.NewCidV1(cid.DagCBOR, blake)) }},
		{"block is record", func(o *Outcome) { o.Block = o.Record }},
		{"verdict", func(o *Outcome) { o.Verdict = "unsure" }},
		{"agree with reason", func(o *Outcome) { o.Reason = "but" }},
		{"fault without reason", func(o *Outcome) { o.Verdict, o.Reason = Fault, "" }},
		{"long reason", func(o *Outcome) { o.Verdict, o.Reason = Fault, strings.Repeat("x", MaxReasonBytes+1) }},
		{"invalid UTF-8", func(o *Outcome) { o.Verdict, o.Reason = Fault, "\xff" }},
	}
	for _, c := range cases {
		o := sampleOutcome(Agree, "")
		c.edit(&o)
		if _, _, err := o.Encode(); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: Encode error %v, want ErrMalformed", c.name, err)
		}
		// The same record, encoded without the checks, must not decode.
		b, err := cbor.Marshal(o)
		if err == nil {
			if canon, err := codec.Marshal(o); err == nil {
				b = canon
			}
			if _, err := DecodeOutcome(b); !errors.Is(err, ErrMalformed) {
				t.Errorf("%s: Decode error %v, want ErrMalformed", c.name, err)
			}
		}
	}
}

func TestOutcomeDecodeRejectsEncodings(t *testing.T) {
	t.Parallel()
	good, _, err := func() ([]byte, cid.Cid, error) { o := sampleOutcome(Agree, ""); return o.Encode() }()
	if err != nil {
		t.Fatal(err)
	}
	type extra struct {
		Outcome
		Note string `cbor:"note"`
	}
	withExtra, err := codec.Marshal(extra{Outcome: sampleOutcome(Agree, ""), Note: "x"})
	if err != nil {
		t.Fatal(err)
	}
	asMap := map[string]any{}
	if err := cbor.Unmarshal(good, &asMap); err != nil {
		t.Fatal(err)
	}
	delete(asMap, "reason")
	missing, err := codec.Marshal(asMap)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"empty":          nil,
		"truncated":      good[:len(good)-1],
		"trailing":       append(append([]byte{}, good...), 0),
		"unknown key":    withExtra,
		"missing key":    missing,
		"not a map":      {0x01},
		"too large":      make([]byte, MaxOutcomeBytes+1),
		"indefinite map": append([]byte{0xbf}, good[1:]...),
	} {
		if _, err := DecodeOutcome(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: error %v, want ErrMalformed", name, err)
		}
	}
}

// FuzzDecodeOutcome: the decoder never panics, and whatever it accepts
// re-encodes to the same bytes.
func FuzzDecodeOutcome(f *testing.F) {
	for _, o := range []Outcome{sampleOutcome(Agree, ""), sampleOutcome(Fault, "reward: recorded 1, replay gives 0")} {
		b, _, err := o.Encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte{0xa0})
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := DecodeOutcome(data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error does not wrap ErrMalformed: %v", err)
			}
			return
		}
		b, _, err := o.Encode()
		if err != nil {
			t.Fatalf("decoded outcome does not encode: %v", err)
		}
		if !bytes.Equal(b, data) {
			t.Fatal("decoded outcome re-encodes differently")
		}
	})
}
