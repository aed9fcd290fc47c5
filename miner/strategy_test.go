package miner

import (
	"testing"
	"time"
)

func TestParseStrategy(t *testing.T) {
	good := map[string]Strategy{
		"perfect":     {Kind: Perfect},
		"random":      {Kind: Random},
		"garbage":     {Kind: Garbage},
		"hang":        {Kind: Hang},
		"noisy:0.3":   {Kind: Noisy, PPM: 300_000},
		"noisy:1":     {Kind: Noisy, PPM: ppmScale},
		"flaky:0":     {Kind: Flaky},
		"flaky:0.125": {Kind: Flaky, PPM: 125_000},
		"slow:1.5s":   {Kind: Slow, Delay: 1500 * time.Millisecond},
		"slow:0s":     {Kind: Slow},
	}
	for s, want := range good {
		got, err := ParseStrategy(s)
		if err != nil || got != want {
			t.Errorf("ParseStrategy(%q) = %+v, %v; want %+v", s, got, err, want)
			continue
		}
		again, err := ParseStrategy(got.String())
		if err != nil || again != got {
			t.Errorf("%q prints as %q, which reads back as %+v, %v", s, got.String(), again, err)
		}
	}
	for _, s := range []string{"", "perfect:1", "noisy", "noisy:", "noisy:1.5", "noisy:-0.1", "noisy:NaN", "noisy:x",
		"flaky", "slow", "slow:", "slow:-1s", "slow:5", "hang:1", "fast", "Perfect"} {
		if _, err := ParseStrategy(s); err == nil {
			t.Errorf("ParseStrategy(%q) accepted", s)
		}
	}
}

func TestDefaultModelIdentity(t *testing.T) {
	a, _ := ParseStrategy("noisy:0.5")
	b, _ := ParseStrategy("noisy:0.6")
	if DefaultModel(a) != "ledger-miner/noisy:0.5" {
		t.Errorf("model %q", DefaultModel(a))
	}
	h := DefaultModelHash(a, 1)
	if len(h) != 64 || h == DefaultModelHash(b, 1) || h == DefaultModelHash(a, 2) || h != DefaultModelHash(a, 1) {
		t.Errorf("model hash must be a 64-hex function of strategy and seed: %q", h)
	}
}

func FuzzParseStrategy(f *testing.F) {
	for _, s := range []string{"perfect", "noisy:0.3", "slow:2s", "flaky:1", "hang", "noisy:1e-7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := ParseStrategy(s)
		if err != nil {
			return
		}
		again, err := ParseStrategy(st.String())
		if err != nil || again != st {
			t.Fatalf("%q parses to %+v, which prints as %q and reads back as %+v, %v", s, st, st.String(), again, err)
		}
		if st.PPM > ppmScale || st.Delay < 0 {
			t.Fatalf("%q: out of range %+v", s, st)
		}
	})
}
