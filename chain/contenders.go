package chain

import (
	"bytes"
	"sort"

	"github.com/affine-ledger/ledger/keys"
)

// Contender is a registered miner's commitment, in queue order.
type Contender struct {
	UID        uint16          `json:"uid"`
	Hotkey     keys.PublicKey  `json:"hotkey"`
	Block      uint64          `json:"block"`
	Commitment MinerCommitment `json:"commitment"`
	// CopyOf is the uid of the earlier commitment of the same model
	// (Identity) when this one is a copy; copies earn no credit.
	CopyOf *uint16 `json:"copy_of,omitempty"`
}

// Contenders turns a subnet's commitments into the contender queue:
// commitments of registered hotkeys that parse as miner commitments, in
// commitment order (block, then uid). The earliest commitment of each model
// identity keeps the credit; later ones are marked CopyOf. Commitments of
// unregistered hotkeys and of other formats are left out.
func Contenders(m *Metagraph, commitments []Commitment) []Contender {
	uids := make(map[keys.PublicKey]uint16, len(m.Neurons))
	for _, n := range m.Neurons {
		uids[n.Hotkey] = n.UID
	}
	var out []Contender
	for _, c := range commitments {
		uid, ok := uids[c.Hotkey]
		if !ok {
			continue
		}
		mc, err := ParseMinerCommitment(c.Fields)
		if err != nil {
			continue
		}
		out = append(out, Contender{UID: uid, Hotkey: c.Hotkey, Block: c.Block, Commitment: mc})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Block != out[j].Block {
			return out[i].Block < out[j].Block
		}
		return out[i].UID < out[j].UID
	})
	first := make(map[[32]byte]uint16)
	for i := range out {
		id := out[i].Commitment.Identity()
		if uid, ok := first[id]; ok {
			out[i].CopyOf = &uid
			continue
		}
		first[id] = out[i].UID
	}
	return out
}

// SortCommitments puts commitments in the order Chain.Commitments returns
// them: by block, then by hotkey bytes.
func SortCommitments(cs []Commitment) {
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].Block != cs[j].Block {
			return cs[i].Block < cs[j].Block
		}
		return bytes.Compare(cs[i].Hotkey[:], cs[j].Hotkey[:]) < 0
	})
}
