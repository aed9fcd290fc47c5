package ledgertest

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/internal/layout"
	"github.com/affine-ledger/ledger/ledger/record"
)

// LegacyChain installs a validator's chain of format-1 blocks (encoded,
// height 0 first, none linking objects) in the closed store at dir, as a
// store written before block format 2 holds one. It returns their CIDs.
func LegacyChain(dir string, blocks ...[]byte) ([]cid.Cid, error) {
	out := make([]cid.Cid, len(blocks))
	err := rawWrite(dir, func(b *pebble.Batch) error {
		for i, raw := range blocks {
			blk, err := record.DecodeBlock(raw)
			if err != nil {
				return fmt.Errorf("ledgertest: block %d: %w", i, err)
			}
			c := codec.Sum(raw)
			out[i] = c
			b.Set(layout.ObjectKey(c.Bytes()), raw, nil)
			b.Set(layout.BlockKey(blk.Validator, blk.Height), c.Bytes(), nil)
			if i == len(blocks)-1 {
				b.Set(layout.HeadKey(blk.Validator), c.Bytes(), nil)
			}
		}
		return nil
	})
	return out, err
}

// LegacyForkProof stores the fork proof of format 1 (which proves no
// equivocation, and which nothing makes since block format 2) of two
// encoded blocks of format 1 in the closed store at dir, and marks their
// validator, as a store written before block format 2 kept one. It
// returns the proof's CID.
func LegacyForkProof(dir string, a, b []byte) (cid.Cid, error) {
	if bytes.Compare(codec.Sum(a).Bytes(), codec.Sum(b).Bytes()) > 0 {
		a, b = b, a
	}
	blk, err := record.DecodeBlock(a)
	if err != nil {
		return cid.Undef, fmt.Errorf("ledgertest: fork proof block: %w", err)
	}
	p := record.ForkProof{Format: record.ForkProofFormatV1, Validator: blk.Validator, Height: blk.Height, A: a, B: b}
	raw, c, err := codec.Encode(&p)
	if err != nil {
		return cid.Undef, err
	}
	return c, rawWrite(dir, func(batch *pebble.Batch) error {
		batch.Set(layout.ObjectKey(c.Bytes()), raw, nil)
		batch.Set(layout.ForkKey(blk.Validator, blk.Height, c.Bytes()), nil, nil)
		return batch.Set(layout.EquivocKey(blk.Validator), c.Bytes(), nil)
	})
}

// UnboundStore creates a closed, empty store with no network in a new
// directory and returns the directory: what a store written before block
// format 2 was before its chains (LegacyChain).
func UnboundStore(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	s, err := ledger.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.Close(); err != nil {
		tb.Fatal(err)
	}
	return dir
}
