package yuma

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/affine-ledger/ledger/internal/golden"
	"github.com/affine-ledger/ledger/rng"
)

// Vector files of spec/yuma.md. Each test writes what the code computes
// (compared byte for byte, or rewritten by `make vectors`), then reads the
// file back and checks every case against the code again.

type epochVectors struct {
	Note  string        `json:"note"`
	Cases []epochVector `json:"cases"`
}

type epochVector struct {
	Name   string `json:"name"`
	Input  Input  `json:"input"`
	Output Output `json:"output"`
}

func TestVectorsEpoch(t *testing.T) {
	file := epochVectors{Note: "Yuma epochs (spec/yuma.md): input as subtensor stores it, output as subtensor would store it; fixed holds the I32F32 vectors as raw 64-bit integers (value * 2^32)."}
	add := func(name string, in Input) {
		out, err := Epoch(in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		file.Cases = append(file.Cases, epochVector{name, in, out})
	}

	// subtensor's test_bonds, epoch by epoch (tests/epoch.rs).
	s := newSim(t, 1, 1, []uint64{1, 2, 3, 4, 0, 0, 0, 0})
	s.params.MaxAllowedValidators = 8
	record := func(name string) {
		in := s.input()
		add(name, in)
		s.epoch()
	}
	record("test_bonds: permits")
	s.block++
	for uid := range 4 {
		s.setWeights(uid, uids(4, 8), []uint16{u16max / 4, u16max / 2, (u16max / 4) * 3, u16max})
	}
	record("test_bonds: weights 0.1..0.4")
	for uid := range 3 {
		s.setWeights(uid, []uint16{uint16(uid)}, []uint16{u16max})
		s.block++
		record(fmt.Sprintf("test_bonds: val%d self-weight", uid+1))
	}
	s.setWeights(2, []uint16{7}, []uint16{u16max})
	s.block++
	record("test_bonds: val3 -> srv4")

	// Consensus at the kappa boundary: half the stake weights uids 2 and 3
	// equally, the other half uid 2 alone. Kappa 32767/65535 (just under
	// one half) puts consensus on uid 3 at 0.5, 32768/65535 at 0.
	for _, kappa := range []uint16{32767, 32768} {
		in := Input{
			Stake: []uint64{5, 5, 0, 0}, ValidatorPermit: []bool{true, true, false, false},
			LastUpdate: []uint64{9, 9, 0, 0}, BlockAtRegistration: []uint64{0, 0, 0, 0},
			Weights:      [][]Entry{{{2, 65535}, {3, 65535}}, {{2, 65535}}},
			CurrentBlock: 10, LastTempo: 1, Emission: 1_000_000_000, Params: DefaultParams(),
		}
		in.Params.Kappa = kappa
		add(fmt.Sprintf("kappa %d at the boundary", kappa), in)
	}

	// Random small subnets: every parameter, sparse rows, stale entries.
	r := rng.New(rng.Derive([32]byte{}, "yuma vectors"))
	for k := range 10 {
		data := make([]byte, 200)
		for i := 0; i < len(data); i += 8 {
			binary.LittleEndian.PutUint64(data[i:], r.Uint64())
		}
		data[0] = byte(2 + k) // 3 to 12 uids
		add(fmt.Sprintf("random %d", k), fuzzInput(data))
	}
	add("synthetic 4x12", Synthetic(4, 12, rng.Derive([32]byte{}, "yuma vectors synthetic")))

	var back epochVectors
	if err := json.Unmarshal(golden.CheckJSON(t, "yuma-epoch.json", file), &back); err != nil {
		t.Fatal(err)
	}
	for _, c := range back.Cases {
		out, err := Epoch(c.Input)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if !reflect.DeepEqual(normalizeJSON(t, out), normalizeJSON(t, c.Output)) {
			t.Errorf("%s: output differs from the file", c.Name)
		}
	}
}

// normalizeJSON compares outputs as the file holds them (nil and empty
// rows are told apart by JSON, as they are by the spec).
func normalizeJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (s *sim) input() Input {
	p := s.params
	p.ActivityCutoff = max(1, 13_889*s.tempo/1000)
	clone := func(rows [][]Entry) [][]Entry {
		out := make([][]Entry, len(rows))
		for i, r := range rows {
			if r != nil {
				out[i] = append([]Entry{}, r...)
			}
		}
		return out
	}
	return Input{
		Stake: append([]uint64(nil), s.stake...), ValidatorPermit: append([]bool(nil), s.permit...),
		LastUpdate: append([]uint64(nil), s.lastUpdate...), BlockAtRegistration: append([]uint64(nil), s.reg...),
		Weights: clone(s.weights), Bonds: clone(s.bonds), CurrentBlock: s.block,
		LastTempo: LastTempo(s.block, s.tempo, 0), Emission: 1_000_000_000, Params: p,
	}
}

type weightVectors struct {
	Note       string          `json:"note"`
	MaxUpscale []upscaleVector `json:"max_upscale"`
	MaxLimited []limitedVector `json:"max_limited"`
}

type upscaleVector struct {
	Values []uint16 `json:"values"`
	Stored []uint16 `json:"stored"`
}

type limitedVector struct {
	Values []uint16 `json:"values"`
	Limit  uint16   `json:"limit"`
	OK     bool     `json:"ok"`
}

func TestVectorsWeights(t *testing.T) {
	inputs := [][]uint16{{}, {0}, {1}, {0, 1}, {65534}, {0, 1, 65534}, {0, 1, 2, 3, 4, 65533, 65535},
		{16383, 32767, 49149, 65535}, {43690, 21845}, {127, 127}, {32768, 16384, 1}, {32767, 16384, 1}, {3, 1, 0}}
	r := rng.New(rng.Derive([32]byte{}, "yuma weight vectors"))
	for range 8 {
		v := make([]uint16, r.IntRange(1, 8))
		for i := range v {
			v[i] = uint16(r.Uniform(1 << uint(r.IntRange(1, 16))))
		}
		inputs = append(inputs, v)
	}
	file := weightVectors{Note: "set_weights (spec/yuma.md, Weights): values as submitted, stored = MaxUpscale(values); max_limited: the max-weight-limit check."}
	for _, v := range inputs {
		file.MaxUpscale = append(file.MaxUpscale, upscaleVector{v, MaxUpscale(v)})
	}
	for _, c := range []struct {
		v     []uint16
		limit uint16
	}{{nil, 0}, {[]uint16{65535}, 65534}, {[]uint16{0, 65535, 65535}, 32767}, {[]uint16{0, 65535, 65535}, 32768},
		{[]uint16{0, 65535, 65535, 65535}, 21844}, {[]uint16{0, 65535, 65535, 65535}, 21845}, {[]uint16{1, 2, 3}, 32767}} {
		file.MaxLimited = append(file.MaxLimited, limitedVector{c.v, c.limit, MaxLimited(c.v, c.limit)})
	}
	var back weightVectors
	if err := json.Unmarshal(golden.CheckJSON(t, "yuma-weights.json", file), &back); err != nil {
		t.Fatal(err)
	}
	for _, c := range back.MaxUpscale {
		if got := MaxUpscale(c.Values); !equalU16(got, c.Stored) {
			t.Errorf("MaxUpscale(%v) = %v, file says %v", c.Values, got, c.Stored)
		}
	}
	for _, c := range back.MaxLimited {
		if got := MaxLimited(c.Values, c.Limit); got != c.OK {
			t.Errorf("MaxLimited(%v, %d) = %v, file says %v", c.Values, c.Limit, got, c.OK)
		}
	}
}
