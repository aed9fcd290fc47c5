package ledgertest

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/internal/layout"
	"github.com/affine-ledger/ledger/ledger/record"
)

// ReplaceTranscript plays a validator that signed what its store would
// have refused: it rewrites transcript index of k's block at height in the
// closed store at dir as edit leaves it, and signs the block again with
// the link and checkpoint recomputed, so that the block is valid in every
// respect but the edited transcript. The transcript is encoded with
// Transcript.Encode if it still passes its checks, else with the codec
// alone (format-2 layout), so it may break any rule of the record.
//
// The new block is installed at height under its own CID; the blocks
// above still link the old one, so height must be below the head (the
// store checks its head when it opens). The stored Merkle nodes stay the
// old log's: an audit that passes the new block finds those it completes
// over the edited leaf damaged. It returns the CIDs of the new
// block and transcript.
func ReplaceTranscript(dir string, k *keys.Hotkey, height uint64, index int, edit func(*record.Transcript)) (block, transcript cid.Cid, err error) {
	v := k.Public()
	s, err := ledger.Open(dir)
	if err != nil {
		return cid.Undef, cid.Undef, fmt.Errorf("ledgertest: %w", err)
	}
	raw, braw, bc, tc, err := resign(s, k, height, index, edit)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return cid.Undef, cid.Undef, fmt.Errorf("ledgertest: replace transcript %d of %s at height %d: %w", index, v, height, err)
	}
	err = rawWrite(dir, func(b *pebble.Batch) error {
		for _, kv := range [][2][]byte{
			{layout.ObjectKey(tc.Bytes()), raw},
			{layout.ObjectKey(bc.Bytes()), braw},
			{layout.BlockKey(v, height), bc.Bytes()},
		} {
			if err := b.Set(kv[0], kv[1], nil); err != nil {
				return err
			}
		}
		return nil
	})
	return bc, tc, err
}

func resign(s *ledger.Store, k *keys.Hotkey, height uint64, index int, edit func(*record.Transcript)) (traw, braw []byte, bc, tc cid.Cid, err error) {
	v := k.Public()
	head, err := s.Head(v)
	if err != nil {
		return nil, nil, cid.Undef, cid.Undef, err
	}
	if height >= head.Block.Height {
		return nil, nil, cid.Undef, cid.Undef, fmt.Errorf("the head is at height %d: only a block below it can be replaced", head.Block.Height)
	}
	b, err := s.BlockAt(v, height)
	if err != nil {
		return nil, nil, cid.Undef, cid.Undef, err
	}
	if index < 0 || index >= len(b.Transcripts) {
		return nil, nil, cid.Undef, cid.Undef, fmt.Errorf("the block has %d transcripts", len(b.Transcripts))
	}
	t, err := s.Transcript(b.Transcripts[index].Cid)
	if err != nil {
		return nil, nil, cid.Undef, cid.Undef, err
	}
	tr := *t.Transcript
	edit(&tr)
	if traw, tc, err = tr.Encode(); err != nil {
		if traw, tc, err = codec.Encode(&tr); err != nil {
			return nil, nil, cid.Undef, cid.Undef, err
		}
	}
	// The log up to this block, with the edited leaf in place.
	var leaves []cid.Cid
	for r, err := range s.Leaves(v, 0) {
		if err != nil {
			return nil, nil, cid.Undef, cid.Undef, err
		}
		if uint64(len(leaves)) == b.Checkpoint.Size {
			break
		}
		leaves = append(leaves, r.CID)
	}
	first := len(leaves) - len(b.Transcripts)
	if first < 0 {
		return nil, nil, cid.Undef, cid.Undef, fmt.Errorf("the log has %d leaves, the block's checkpoint %d", len(leaves), b.Checkpoint.Size)
	}
	leaves[first+index] = tc
	h := b.Header
	h.Transcripts = append([]codec.Link(nil), h.Transcripts...)
	h.Transcripts[index] = codec.LinkTo(tc)
	h.Checkpoint = record.CheckpointOf(leaves)
	_, braw, bc, err = record.Sign(h, k)
	return traw, braw, bc, tc, err
}
