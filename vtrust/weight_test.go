package vtrust

import (
	"math"
	"math/big"
	"testing"
)

func TestWeightArithmetic(t *testing.T) {
	t.Parallel()
	// 2^16 validators of maximal stake at full vTrust: the largest sum an
	// epoch can make.
	var sum Weight
	want := new(big.Int)
	one := new(big.Int).Mul(new(big.Int).SetUint64(math.MaxUint64), big.NewInt(PPM))
	for range 1 << 16 {
		sum = sum.Add(weightOf(math.MaxUint64, PPM))
		want.Add(want, one)
	}
	if sum.Big().Cmp(want) != 0 {
		t.Fatalf("sum %s, want %s", sum, want)
	}
	if d := sum.Double(); d.Big().Cmp(new(big.Int).Lsh(want, 1)) != 0 || d.Cmp(sum) != 1 || sum.Cmp(d) != -1 || sum.Cmp(sum) != 0 {
		t.Fatalf("double or compare wrong: %s", d)
	}
	text, _ := sum.MarshalText()
	var back Weight
	if err := back.UnmarshalText(text); err != nil || back != sum {
		t.Fatalf("%s round-trips to %s (%v)", text, back, err)
	}
	for _, bad := range []string{"", "-1", "0x10", "340282366920938463463374607431768211456"} {
		if err := back.UnmarshalText([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if !(Weight{}).IsZero() || weightOf(1, 1).IsZero() {
		t.Fatal("IsZero")
	}
}

func TestMulDivFloors(t *testing.T) {
	t.Parallel()
	for _, c := range [][4]uint64{
		{1, PPM, 3, 333_333},
		{2, PPM, 3, 666_666},
		{333_333, 666_666, PPM, 222_221},
		{math.MaxUint64, PPM, math.MaxUint64, PPM},
		{0, PPM, 7, 0},
	} {
		if got := mulDiv(c[0], c[1], c[2]); got != c[3] {
			t.Errorf("floor(%d*%d/%d) = %d, want %d", c[0], c[1], c[2], got, c[3])
		}
	}
}
