package yuma

import (
	"math"
	"reflect"
	"slices"
	"testing"
)

// bytesIn hands out fuzz bytes as small numbers, zeros once they run out,
// so the fuzzer steers the shape of the subnet directly.
type bytesIn struct{ b []byte }

func (r *bytesIn) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *bytesIn) u16() uint16 { return uint16(r.byte())<<8 | uint16(r.byte()) }

// fuzzInput builds a valid epoch input of up to 12 uids from data: stakes,
// permits, blocks, sparse weight and bond rows, and every parameter.
func fuzzInput(data []byte) Input {
	r := &bytesIn{data}
	n := int(r.byte()%12) + 1
	in := Input{
		Stake: make([]uint64, n), ValidatorPermit: make([]bool, n),
		LastUpdate: make([]uint64, n), BlockAtRegistration: make([]uint64, n),
		Weights: make([][]Entry, n), Bonds: make([][]Entry, n),
		CurrentBlock: uint64(r.byte()), LastTempo: uint64(r.byte()),
		Emission: uint64(r.u16()) << uint(r.byte()%40),
		Params: Params{
			Kappa: r.u16(), BondsPenalty: r.u16(), BondsMovingAverage: uint64(r.u16()) * 1_000_000 / math.MaxUint16,
			ActivityCutoff: uint64(r.byte()), MaxAllowedValidators: uint16(r.byte() % 16),
			StakeThreshold: uint64(r.byte()), OwnerUID: int(r.byte()%byte(n+1)) - 1, Yuma3: r.byte()%2 == 1,
		},
	}
	for i := range n {
		in.Stake[i] = uint64(r.u16()) << uint(r.byte()%44)
		in.ValidatorPermit[i] = r.byte()%4 != 0
		in.LastUpdate[i] = uint64(r.byte())
		in.BlockAtRegistration[i] = uint64(r.byte())
		for _, rows := range [][][]Entry{in.Weights, in.Bonds} {
			mask := r.u16()
			for j := range n + 2 { // uids n and n+1 exist in stale rows; they must be ignored
				if mask&(1<<j) != 0 {
					rows[i] = append(rows[i], Entry{uint16(j), r.u16()})
				}
			}
		}
	}
	return in
}

// FuzzEpoch runs random small subnets: the epoch must accept any valid
// state, stay deterministic, and keep its outputs normalized.
func FuzzEpoch(f *testing.F) {
	f.Add([]byte{3, 10, 5, 0, 100, 10, 0x7f, 0xff, 0xff, 0xff, 0xe6, 0x66, 50, 8, 0, 1, 0})
	f.Add([]byte{11, 200, 190, 0xff, 0xff, 30, 0, 0, 0xe0, 0, 0x80, 0, 100, 3, 10, 3, 1})
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := fuzzInput(data)
		out, err := Epoch(in)
		if err != nil {
			t.Fatalf("valid input rejected: %v", err)
		}
		again, _ := Epoch(in)
		if !reflect.DeepEqual(out, again) {
			t.Fatal("same input, different output")
		}
		checkOutput(t, in, out)
	})
}

// checkOutput asserts what holds for every epoch.
func checkOutput(t *testing.T, in Input, out Output) {
	t.Helper()
	n := len(in.Stake)
	for _, l := range []int{len(out.Active), len(out.ValidatorPermit), len(out.Consensus), len(out.ValidatorTrust),
		len(out.Incentive), len(out.Dividends), len(out.Emission), len(out.Bonds), len(out.Fixed.Incentive)} {
		if l != n {
			t.Fatalf("output length %d for %d uids", l, n)
		}
	}
	// Normalized vectors sum to one, less at most one ulp per element
	// (each share is floored), or are all zero.
	for name, v := range map[string][]Fixed{"stake": out.Fixed.Stake, "active stake": out.Fixed.ActiveStake,
		"incentive": out.Fixed.Incentive, "dividends": out.Fixed.Dividends} {
		if s := sum(v); s != 0 && (s > One || One-s > Fixed(n)) {
			t.Errorf("%s sums to %v (%d ulp short)", name, s, One-s)
		}
		for i, x := range v {
			if x < 0 || x > One {
				t.Errorf("%s[%d] = %v outside [0, 1]", name, i, x)
			}
		}
	}
	for i, v := range out.Fixed.ValidatorTrust {
		if v < 0 || v > One {
			t.Errorf("vtrust[%d] = %v outside [0, 1]", i, v)
		}
		if v > 0 && !in.ValidatorPermit[i] && i != in.Params.OwnerUID {
			t.Errorf("uid %d has vtrust %v without a permit", i, v)
		}
	}
	for i, c := range out.Fixed.Consensus {
		if c < 0 || c > One {
			t.Errorf("consensus[%d] = %v outside [0, 1]", i, c)
		}
	}
	var total uint64
	ulp := int64(in.Emission>>32) + 1 // one I32F32 ulp of the emission, in rao
	for i, e := range out.Emission {
		total += e
		// The two parts are floored apart: at most one ulp and two rao off.
		if d := int64(out.ServerEmission[i]+out.ValidatorEmission[i]) - int64(e); d > ulp+2 || d < -ulp-2 {
			t.Errorf("uid %d: server %d + validator %d != emission %d", i, out.ServerEmission[i], out.ValidatorEmission[i], e)
		}
	}
	// Each of n shares is floored twice (share, then rao): at most
	// n*E/2^32 + n rao go missing.
	if slack := uint64(n)*(in.Emission>>32+1) + uint64(n); total > in.Emission || (total != 0 && in.Emission-total > slack) {
		t.Errorf("emission sums to %d of %d", total, in.Emission)
	}
	for i, row := range out.Bonds {
		if !slices.IsSortedFunc(row, func(a, b Entry) int { return int(a.UID) - int(b.UID) }) && out.ValidatorPermit[i] {
			t.Errorf("bonds row %d not in uid order: %v", i, row)
		}
		if out.ValidatorPermit[i] {
			for _, e := range row {
				if int(e.UID) >= n {
					t.Errorf("bonds row %d holds uid %d of %d", i, e.UID, n)
				}
			}
		}
	}
}

// FuzzMaxUpscale: the largest weight becomes 65535 and order is kept.
func FuzzMaxUpscale(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 0xff, 0xff})
	f.Add([]byte{0x80, 0x00, 0x80, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &bytesIn{data}
		v := make([]uint16, len(data)/2)
		for i := range v {
			v[i] = r.u16()
		}
		up := MaxUpscale(v)
		if len(up) != len(v) {
			t.Fatalf("length %d, want %d", len(up), len(v))
		}
		top := slices.Max(append([]uint16{0}, v...))
		for i := range v {
			if top != 0 && v[i] == top && up[i] != math.MaxUint16 {
				t.Errorf("max %d upscaled to %d", top, up[i])
			}
			if v[i] == 0 && up[i] != 0 {
				t.Errorf("zero upscaled to %d", up[i])
			}
			for j := range v {
				if v[i] < v[j] && up[i] > up[j] {
					t.Errorf("order broken: %d<%d became %d>%d", v[i], v[j], up[i], up[j])
				}
			}
		}
	})
}
