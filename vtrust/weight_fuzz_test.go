package vtrust

import (
	"math/big"
	"testing"
)

// FuzzWeightText: a weight reads from decimal digits below 2^128 only, and
// prints back as the same number.
func FuzzWeightText(f *testing.F) {
	for _, s := range []string{"0", "18446744073709551616", "340282366920938463463374607431768211455", "340282366920938463463374607431768211456", "-1", "0x10", "007"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var w Weight
		if err := w.UnmarshalText(b); err != nil {
			return
		}
		want, ok := new(big.Int).SetString(string(b), 10)
		if !ok || w.Big().Cmp(want) != 0 || w.Big().BitLen() > 128 {
			t.Fatalf("%q read as %s", b, w)
		}
		var back Weight
		out, _ := w.MarshalText()
		if err := back.UnmarshalText(out); err != nil || back != w {
			t.Fatalf("%s does not round-trip: %v", out, err)
		}
	})
}
