package record_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// A format-2 transcript records its seed, and the seed derives its
// challenge.
func TestTranscriptSeed(t *testing.T) {
	v := alice(t).Public()
	tr := recordtest.Transcript(v, 42, 0)
	if tr.Format != record.TranscriptFormat || tr.Seed == nil || tr.Seed.Counter != 42 || tr.Seed.Anchor != recordtest.SeedAnchor {
		t.Fatalf("sample transcript: format %d seed %+v", tr.Format, tr.Seed)
	}
	id, err := tr.Seed.Derive(v, tr.Env, tr.EnvVersion)
	if err != nil || id != tr.Challenge {
		t.Fatalf("seed derives %v (%v), the challenge is %v", id, err, tr.Challenge)
	}
	raw, _, err := tr.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := record.DecodeTranscript(raw)
	if err != nil || back.Seed == nil || *back.Seed != *tr.Seed {
		t.Fatalf("seed does not survive a round trip: %v %+v", err, back)
	}
	// The anchor's number is not part of the derivation: a transcript
	// with another number passes its own checks (verify places the anchor
	// in the chain).
	moved := tr
	seed := *tr.Seed
	seed.Anchor.Number++
	moved.Seed = &seed
	if _, _, err := moved.Encode(); err != nil {
		t.Fatalf("anchor number moved: %v", err)
	}
}

// Format-1 records (no seed key) still decode, and re-encode to their own
// bytes; each format has exactly one layout.
func TestTranscriptFormat1(t *testing.T) {
	v := alice(t).Public()
	old := recordtest.TranscriptV1(v, 7, 0)
	raw, c, err := old.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("seed")) {
		t.Fatal("format 1 encodes a seed key")
	}
	back, err := record.DecodeTranscript(raw)
	if err != nil {
		t.Fatal(err)
	}
	if back.Format != record.TranscriptFormatV1 || back.Seed != nil || back.Challenge != old.Challenge {
		t.Fatalf("format 1 decodes as format %d seed %+v", back.Format, back.Seed)
	}
	again, c2, err := back.Encode()
	if err != nil || !bytes.Equal(again, raw) || !c2.Equals(c) {
		t.Fatalf("format 1 does not re-encode to its bytes (err %v)", err)
	}
	// The same fields and challenge as format 2 differ only by the seed
	// key: same transcript, other bytes and CID.
	cur := recordtest.Transcript(v, 7, 0)
	raw2, c3, err := cur.Encode()
	if err != nil || c3.Equals(c) || len(raw2) <= len(raw) {
		t.Fatalf("format 2 of the same record: %d bytes vs %d, CIDs equal %v (err %v)", len(raw2), len(raw), c3.Equals(c), err)
	}

	// Format 1 in format 2's layout (a null seed), and format 2 in format
	// 1's (no seed key), are refused.
	nullSeed := old
	encNull, err := codec.Marshal(&nullSeed)
	if err != nil {
		t.Fatal(err)
	}
	noKey := cur
	noKey.Format = record.TranscriptFormatV1
	noKey.Seed = nil
	encNoKey, _, err := noKey.Encode()
	if err != nil {
		t.Fatal(err)
	}
	encNoKey = bytes.Replace(encNoKey, []byte{0x61, 'v', 0x01}, []byte{0x61, 'v', 0x02}, 1)
	for name, tc := range map[string]struct {
		raw  []byte
		want string
	}{
		"format 1 with a null seed": {encNull, "format 1 has none"},
		"format 2 without seed key": {encNoKey, "format 2 has no seed"},
	} {
		_, err := record.DecodeTranscript(tc.raw)
		if !errors.Is(err, record.ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want ErrMalformed saying %q", name, err, tc.want)
		}
	}
}
