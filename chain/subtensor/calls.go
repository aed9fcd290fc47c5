package subtensor

import (
	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/chain/scale"
)

// CallIndex is a call's (pallet index, call index) pair, read from the
// runtime's metadata. In subtensor spec 425 SubtensorModule is pallet 7
// (set_weights 0, commit_weights 96, reveal_weights 97) and Commitments is
// pallet 18 (set_commitment 0).
type CallIndex struct {
	Pallet uint8
	Call   uint8
}

// The calls this package makes, as "Pallet.call" names for the metadata.
const (
	callSetCommitment = "Commitments.set_commitment"
	callSetWeights    = "SubtensorModule.set_weights"
	callCommitWeights = "SubtensorModule.commit_weights"
	callRevealWeights = "SubtensorModule.reveal_weights"
)

func header(idx CallIndex, netuid uint16) *scale.Encoder {
	var e scale.Encoder
	e.U8(idx.Pallet)
	e.U8(idx.Call)
	e.U16(netuid)
	return &e
}

// SetCommitmentCall encodes set_commitment(netuid u16, info
// Box<CommitmentInfo{fields: BoundedVec<Data, 3>}>); a Box encodes as its
// content.
func SetCommitmentCall(idx CallIndex, netuid uint16, fields []chain.Data) ([]byte, error) {
	info, err := chain.EncodeFields(fields)
	if err != nil {
		return nil, err
	}
	e := header(idx, netuid)
	e.Fixed(info)
	return e.Bytes(), nil
}

// SetWeightsCall encodes set_weights(netuid u16, dests Vec<u16>, weights
// Vec<u16>, version_key u64).
func SetWeightsCall(idx CallIndex, netuid uint16, w chain.Weights) []byte {
	e := header(idx, netuid)
	e.VecU16(w.UIDs)
	e.VecU16(w.Values)
	e.U64(w.VersionKey)
	return e.Bytes()
}

// CommitWeightsCall encodes commit_weights(netuid u16, commit_hash H256).
func CommitWeightsCall(idx CallIndex, netuid uint16, h chain.Hash) []byte {
	e := header(idx, netuid)
	e.Fixed(h[:])
	return e.Bytes()
}

// RevealWeightsCall encodes reveal_weights(netuid u16, uids Vec<u16>,
// values Vec<u16>, salt Vec<u16>, version_key u64).
func RevealWeightsCall(idx CallIndex, netuid uint16, r chain.Reveal) []byte {
	e := header(idx, netuid)
	e.VecU16(r.UIDs)
	e.VecU16(r.Values)
	e.VecU16(r.Salt)
	e.U64(r.VersionKey)
	return e.Bytes()
}
