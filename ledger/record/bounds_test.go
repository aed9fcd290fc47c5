package record_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// The tests of this file hold each size and count bound of spec/limits.md
// ("Ledger records") at exactly the bound, accepted, and one past it,
// refused with an error naming the bound.

// links returns n distinct record addresses, tagged so that two calls with
// other tags share none.
func links(tag string, n int) []codec.Link {
	out := make([]codec.Link, n)
	for i := range out {
		out[i] = codec.LinkTo(codec.Sum(binary.BigEndian.AppendUint32([]byte(tag), uint32(i))))
	}
	return out
}

// widestHeader is a block of k with nt transcript and nd decision links
// and every integer at its widest encoding: with the bounds' counts, the
// largest block Check allows.
func widestHeader(k *keys.Hotkey, nt, nd int) record.Header {
	return record.Header{
		Format: record.BlockFormat, Net: recordtest.Network,
		Validator:   k.Public(),
		Height:      math.MaxUint64,
		Prev:        links("prev", 1)[0],
		TimeMS:      math.MaxInt64,
		Anchor:      record.Anchor{Number: math.MaxUint64, Hash: recordtest.Anchor(1).Hash},
		Transcripts: links("transcript", nt),
		Decisions:   links("decision", nd),
		Checkpoint:  record.Checkpoint{Size: math.MaxUint64, Root: record.EmptyRoot()},
	}
}

// encodeUnchecked encodes a block with a garbage signature, bypassing
// Sign's check: the bytes a peer could send.
func encodeUnchecked(t *testing.T, h record.Header) []byte {
	t.Helper()
	raw, _, err := codec.Encode(&record.Block{Header: h})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// wantBoundError fails t unless err wraps ErrMalformed and names the bound
// as "max <bound>".
func wantBoundError(t *testing.T, err error, bound int) {
	t.Helper()
	if want := fmt.Sprintf("max %d", bound); !errors.Is(err, record.ErrMalformed) || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want ErrMalformed naming %q", err, want)
	}
}

// wantSizeBound holds decode's size check at bound with raw, a valid
// record, padded: to exactly bound bytes it is parsed (and refused for the
// padding, as trailing bytes), one byte more is refused by size before
// parsing. It returns that refusal.
func wantSizeBound(t *testing.T, what string, raw []byte, bound int, decode func([]byte) error) error {
	t.Helper()
	exact := append(bytes.Clone(raw), make([]byte, bound-len(raw))...)
	if err := decode(exact); !errors.Is(err, codec.ErrNotCanonical) || !strings.Contains(err.Error(), "trailing bytes") {
		t.Fatalf("%s padded to exactly %d bytes: err = %v, want the padding refused as trailing bytes", what, bound, err)
	}
	err := decode(append(exact, 0))
	wantBoundError(t, err, bound)
	return err
}

// TestBlockLinkBounds: a block with exactly MaxTranscriptsPerBlock
// transcript links, or MaxDecisionsPerBlock decision links, is signed,
// decoded and verified; one more link is refused by Sign and, in bytes a
// peer sent, by DecodeBlock.
func TestBlockLinkBounds(t *testing.T) {
	k := alice(t)
	for _, tc := range []struct {
		name   string
		bound  int
		header func(n int) record.Header
	}{
		{"transcripts", record.MaxTranscriptsPerBlock, func(n int) record.Header { return widestHeader(k, n, 0) }},
		{"decisions", record.MaxDecisionsPerBlock, func(n int) record.Header { return widestHeader(k, 0, n) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, raw, c, err := record.Sign(tc.header(tc.bound), k)
			if err != nil {
				t.Fatalf("%d %s: %v", tc.bound, tc.name, err)
			}
			b, err := record.DecodeBlock(raw)
			if err != nil {
				t.Fatalf("decode %d %s: %v", tc.bound, tc.name, err)
			}
			if err := b.VerifySignature(); err != nil {
				t.Fatal(err)
			}
			if got := len(b.Transcripts) + len(b.Decisions); got != tc.bound || !codec.Sum(raw).Equals(c) {
				t.Fatalf("decoded %d links, want %d", got, tc.bound)
			}

			over := tc.header(tc.bound + 1)
			_, _, _, err = record.Sign(over, k)
			wantBoundError(t, err, tc.bound)
			_, err = record.DecodeBlock(encodeUnchecked(t, over))
			wantBoundError(t, err, tc.bound)
		})
	}
}

// TestBlockBytesBound: no block Check allows reaches MaxBlockBytes, so the
// size check is held at the bound with the largest valid block padded to
// it. Padded to exactly MaxBlockBytes the bytes pass the size check and
// are parsed (refused for the padding); one byte more is refused by size.
// The largest valid block itself is signed and decoded.
func TestBlockBytesBound(t *testing.T) {
	k := alice(t)
	_, raw, _, err := record.Sign(widestHeader(k, record.MaxTranscriptsPerBlock, record.MaxDecisionsPerBlock), k)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := record.DecodeBlock(raw); err != nil {
		t.Fatal(err)
	}
	if len(raw) >= record.MaxBlockBytes {
		t.Fatalf("the largest valid block has %d bytes, max %d", len(raw), record.MaxBlockBytes)
	}
	t.Logf("largest valid block: %d bytes of %d", len(raw), record.MaxBlockBytes)

	err = wantSizeBound(t, "block", raw, record.MaxBlockBytes, func(b []byte) error { _, err := record.DecodeBlock(b); return err })
	if !strings.Contains(err.Error(), fmt.Sprint(record.MaxBlockBytes+1)) {
		t.Fatalf("err = %v, want the size %d", err, record.MaxBlockBytes+1)
	}
}

// TestDecisionBytesBound: a canonical decision of exactly MaxDecisionBytes
// is accepted, one of a byte more refused.
func TestDecisionBytesBound(t *testing.T) {
	decision := func(size int) []byte {
		// A byte string of 64 KiB or more has a 5-byte head.
		raw, err := codec.Marshal(map[string][]byte{"x": make([]byte, size-5-3)})
		if err != nil {
			t.Fatal(err)
		}
		if len(raw) != size {
			t.Fatalf("decision of %d bytes, want %d", len(raw), size)
		}
		return raw
	}
	if err := record.CheckDecision(decision(record.MaxDecisionBytes)); err != nil {
		t.Fatalf("decision of exactly %d bytes: %v", record.MaxDecisionBytes, err)
	}
	wantBoundError(t, record.CheckDecision(decision(record.MaxDecisionBytes+1)), record.MaxDecisionBytes)
}

// TestForkProofBytesBound: the largest fork proof (two of the largest
// blocks) decodes and is under MaxForkProofBytes; padded to exactly the
// bound it is parsed (refused for the padding), one byte more is refused
// by size.
func TestForkProofBytesBound(t *testing.T) {
	k := alice(t)
	var blocks [2][]byte
	for i := range blocks {
		h := widestHeader(k, record.MaxTranscriptsPerBlock, record.MaxDecisionsPerBlock)
		h.Anchor.Hash[0] = byte(i)
		_, raw, _, err := record.Sign(h, k)
		if err != nil {
			t.Fatal(err)
		}
		blocks[i] = raw
	}
	p, err := record.NewForkProof(blocks[0], blocks[1])
	if err != nil {
		t.Fatal(err)
	}
	raw, _, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := record.DecodeForkProof(raw); err != nil {
		t.Fatal(err)
	}
	if len(raw) >= record.MaxForkProofBytes {
		t.Fatalf("the largest fork proof has %d bytes, max %d", len(raw), record.MaxForkProofBytes)
	}
	t.Logf("largest fork proof: %d bytes of %d", len(raw), record.MaxForkProofBytes)
	wantSizeBound(t, "fork proof", raw, record.MaxForkProofBytes, func(b []byte) error { _, err := record.DecodeForkProof(b); return err })
}

// TestTranscriptBounds holds each bound of a transcript's fields at
// exactly the bound, where Encode accepts it and DecodeTranscript reads
// the same record back, and one past it, where Encode refuses it and so
// does DecodeTranscript in the bytes a peer could send.
func TestTranscriptBounds(t *testing.T) {
	v := alice(t).Public()
	messages := func(n int) []envs.Message {
		out := make([]envs.Message, n)
		for i := range out {
			out[i] = envs.Message{Role: envs.RoleUser, Content: "x"}
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		bound int
		// set gives the transcript a field of size n.
		set func(tr *record.Transcript, n int)
		// want is what the refusal of bound+1 says.
		want string
	}{
		{"reason", record.MaxTextField, func(tr *record.Transcript, n int) { tr.Reason = strings.Repeat("r", n) }, "max 4096"},
		{"error", record.MaxTextField, func(tr *record.Transcript, n int) { tr.Error = strings.Repeat("e", n) }, "max 4096"},
		{"miner model", record.MaxTextField, func(tr *record.Transcript, n int) { tr.Miner.Model = strings.Repeat("m", n) }, "max 4096"},
		{"miner revision", record.MaxTextField, func(tr *record.Transcript, n int) { tr.Miner.Revision = strings.Repeat("v", n) }, "max 4096"},
		{"miner endpoint", record.MaxTextField, func(tr *record.Transcript, n int) { tr.Miner.Endpoint = strings.Repeat("p", n) }, "max 4096"},
		{"model hash", record.MaxModelHash, func(tr *record.Transcript, n int) { tr.Miner.ModelHash = bytes.Repeat([]byte{7}, n) }, "max 64"},
		{"messages", record.MaxMessages, func(tr *record.Transcript, n int) { tr.Conversation = messages(n) }, "max 256"},
		{"turn rewards", record.MaxTurnRewards, func(tr *record.Transcript, n int) { tr.TurnRewards = make([]int64, n) }, "max 256"},
		{"conversation bytes", record.MaxConversationBytes, func(tr *record.Transcript, n int) {
			// Roles count: "user" and "assistant" are 13 of the n bytes.
			tr.Conversation = []envs.Message{
				{Role: envs.RoleUser, Content: "q"},
				{Role: envs.RoleAssistant, Content: strings.Repeat("a", n-len(envs.RoleUser)-1-len(envs.RoleAssistant))},
			}
		}, "exceeds 1048576 bytes at message 1"},
		{"role", record.MaxRoleBytes, func(tr *record.Transcript, n int) { tr.Conversation[0].Role = strings.Repeat("r", n) }, "must be 1 to 16 characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at := recordtest.Transcript(v, 1, 0)
			tc.set(&at, tc.bound)
			raw, _, err := at.Encode()
			if err != nil {
				t.Fatalf("%s of exactly %d: %v", tc.name, tc.bound, err)
			}
			back, err := record.DecodeTranscript(raw)
			if err != nil {
				t.Fatalf("decode %s of exactly %d: %v", tc.name, tc.bound, err)
			}
			if !reflect.DeepEqual(*back, at) {
				t.Fatalf("%s of exactly %d: decoded record differs from the encoded one", tc.name, tc.bound)
			}

			over := recordtest.Transcript(v, 1, 0)
			tc.set(&over, tc.bound+1)
			if _, _, err := over.Encode(); !errors.Is(err, record.ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("encode %s of %d: err = %v, want ErrMalformed saying %q", tc.name, tc.bound+1, err, tc.want)
			}
			sent, err := codec.Marshal(&over)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := record.DecodeTranscript(sent); !errors.Is(err, record.ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("decode %s of %d: err = %v, want ErrMalformed saying %q", tc.name, tc.bound+1, err, tc.want)
			}
		})
	}
}

// TestTranscriptEdgeValues: the values at the edges of what Check allows
// (time zero, no time between start and finish, roles of the first and
// last letters and the underscore) are accepted; TestTranscriptCheck
// holds the values just past them.
func TestTranscriptEdgeValues(t *testing.T) {
	v := alice(t).Public()
	for name, edit := range map[string]func(*record.Transcript){
		"started at zero":     func(tr *record.Transcript) { tr.StartedMS, tr.FinishedMS = 0, 5 },
		"finished as started": func(tr *record.Transcript) { tr.FinishedMS = tr.StartedMS },
		"role of a, z and _":  func(tr *record.Transcript) { tr.Conversation[0].Role = "a_z" },
	} {
		tr := recordtest.Transcript(v, 1, 0)
		edit(&tr)
		if _, _, err := tr.Encode(); err != nil {
			t.Errorf("%s: %v, want it accepted", name, err)
		}
	}
}

// TestTranscriptBytesBound: no transcript Check allows reaches
// MaxTranscriptBytes (its fields' bounds sum to about half of it), so the
// decoder's size check is held at the bound with a transcript padded to
// it: exactly MaxTranscriptBytes is parsed (and refused for the padding),
// one byte more is refused by size before parsing.
func TestTranscriptBytesBound(t *testing.T) {
	tr := recordtest.Transcript(alice(t).Public(), 1, 0)
	raw, _, err := tr.Encode()
	if err != nil {
		t.Fatal(err)
	}
	wantSizeBound(t, "transcript", raw, record.MaxTranscriptBytes, func(b []byte) error { _, err := record.DecodeTranscript(b); return err })
}
