package record_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
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

	exact := append(bytes.Clone(raw), make([]byte, record.MaxBlockBytes-len(raw))...)
	_, err = record.DecodeBlock(exact)
	if !errors.Is(err, codec.ErrNotCanonical) || !strings.Contains(err.Error(), "trailing bytes") {
		t.Fatalf("block padded to exactly %d bytes: err = %v, want the padding refused as trailing bytes", record.MaxBlockBytes, err)
	}
	_, err = record.DecodeBlock(append(exact, 0))
	wantBoundError(t, err, record.MaxBlockBytes)
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
	exact := append(bytes.Clone(raw), make([]byte, record.MaxForkProofBytes-len(raw))...)
	_, err = record.DecodeForkProof(exact)
	if !errors.Is(err, codec.ErrNotCanonical) || !strings.Contains(err.Error(), "trailing bytes") {
		t.Fatalf("fork proof padded to exactly %d bytes: err = %v, want the padding refused as trailing bytes", record.MaxForkProofBytes, err)
	}
	_, err = record.DecodeForkProof(append(exact, 0))
	wantBoundError(t, err, record.MaxForkProofBytes)
}
