package yuma

import (
	"math"
	"testing"
)

// sim replays the chain-level setup of subtensor's epoch tests
// (pallets/subtensor/src/tests/epoch.rs): registration, set_weights,
// replacing a neuron, blocks passing, and epochs that store their permits
// and bonds for the next one. It does what the pallet's extrinsics do to
// the epoch's inputs at commit 14bc6f9f, nothing more.
type sim struct {
	t          *testing.T
	block      uint64
	tempo      uint64
	params     Params
	stake      []uint64
	permit     []bool
	lastUpdate []uint64
	reg        []uint64
	weights    [][]Entry
	bonds      [][]Entry
}

// newSim registers len(stakes) uids at block (append_neuron: the
// registration block is also the first LastUpdate, permits start false).
func newSim(t *testing.T, block, tempo uint64, stakes []uint64) *sim {
	n := len(stakes)
	s := &sim{t: t, block: block, tempo: tempo, params: mockParams(), stake: append([]uint64(nil), stakes...),
		permit: make([]bool, n), lastUpdate: make([]uint64, n), reg: make([]uint64, n),
		weights: make([][]Entry, n), bonds: make([][]Entry, n)}
	for i := range n {
		s.reg[i], s.lastUpdate[i] = block, block
	}
	return s
}

// mockParams are the parameters of subtensor's test runtime (tests/mock.rs)
// that the epoch reads.
func mockParams() Params {
	p := DefaultParams()
	p.MaxAllowedValidators = 100 // InitialMaxAllowedValidators
	return p
}

// setWeights is set_weights: values are max-upscaled, LastUpdate moves.
func (s *sim) setWeights(uid int, uids []uint16, values []uint16) {
	up := MaxUpscale(values)
	row := make([]Entry, len(uids))
	for k := range uids {
		row[k] = Entry{uids[k], up[k]}
	}
	s.weights[uid] = row
	s.lastUpdate[uid] = s.block
}

// replace is replace_neuron + clear_neuron: a new hotkey (with stake) takes
// the uid; its weights and bonds go, weights others set on it become zero.
func (s *sim) replace(uid int, stake uint64) {
	s.weights[uid], s.bonds[uid] = nil, nil
	for _, r := range s.weights {
		for k := range r {
			if int(r[k].UID) == uid {
				r[k].Value = 0
			}
		}
	}
	s.permit[uid] = false
	s.reg[uid], s.lastUpdate[uid] = s.block, s.block
	s.stake[uid] = stake
}

// epoch runs Epoch on the current state and stores permits and bonds.
// Subtensor's tests never run a mechanism step, so LastTempo is
// block - tempo, and the activity cutoff is derived from the tempo as the
// pallet does (13_889 per mille, at least one block).
func (s *sim) epoch() Output {
	s.t.Helper()
	p := s.params
	p.ActivityCutoff = max(1, 13_889*s.tempo/1000)
	in := Input{
		Stake: s.stake, ValidatorPermit: s.permit, LastUpdate: s.lastUpdate, BlockAtRegistration: s.reg,
		Weights: s.weights, Bonds: s.bonds, CurrentBlock: s.block, LastTempo: LastTempo(s.block, s.tempo, 0),
		Emission: 1_000_000_000, Params: p,
	}
	out, err := Epoch(in)
	if err != nil {
		s.t.Fatal(err)
	}
	s.permit, s.bonds = out.ValidatorPermit, out.Bonds
	return out
}

// bond returns the stored bond of uid i on uid j (get_bonds), zero if absent.
func (s *sim) bond(i, j int) uint16 {
	for _, e := range s.bonds[i] {
		if int(e.UID) == j {
			return e.Value
		}
	}
	return 0
}

func uids(lo, hi int) []uint16 {
	var out []uint16
	for u := lo; u < hi; u++ {
		out = append(out, uint16(u))
	}
	return out
}

const u16max = math.MaxUint16
