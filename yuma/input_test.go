package yuma

import (
	"errors"
	"strings"
	"testing"
)

func TestEpochRejectsBadInput(t *testing.T) {
	t.Parallel()
	base := func() Input {
		return Input{
			Stake: []uint64{1, 2, 3}, ValidatorPermit: make([]bool, 3),
			LastUpdate: make([]uint64, 3), BlockAtRegistration: make([]uint64, 3), Params: DefaultParams(),
		}
	}
	cases := []struct {
		name   string
		mutate func(*Input)
		want   string
	}{
		{"short permits", func(in *Input) { in.ValidatorPermit = in.ValidatorPermit[:2] }, "len(ValidatorPermit) = 2, want 3"},
		{"long last update", func(in *Input) { in.LastUpdate = append(in.LastUpdate, 0) }, "len(LastUpdate) = 4"},
		{"short registration", func(in *Input) { in.BlockAtRegistration = nil }, "len(BlockAtRegistration) = 0"},
		{"stake overflow", func(in *Input) { in.Stake[2] = 1 << 63 }, "total stake exceeds"},
		{"owner", func(in *Input) { in.Params.OwnerUID = 3 }, "OwnerUID 3"},
		{"negative owner", func(in *Input) { in.Params.OwnerUID = -2 }, "OwnerUID -2"},
		{"moving average", func(in *Input) { in.Params.BondsMovingAverage = 1_000_001 }, "BondsMovingAverage 1000001"},
		{"too many rows", func(in *Input) { in.Weights = make([][]Entry, 4) }, "4 weight rows"},
		{"duplicate weight", func(in *Input) { in.Weights = [][]Entry{nil, {{2, 1}, {0, 5}, {2, 3}}} }, "Weights row of uid 1 holds uid 2 twice"},
		{"duplicate bond", func(in *Input) { in.Bonds = [][]Entry{{{1, 1}, {1, 1}}} }, "Bonds row of uid 0 holds uid 1 twice"},
	}
	for _, c := range cases {
		in := base()
		c.mutate(&in)
		_, err := Epoch(in)
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want ErrInput mentioning %q", c.name, err, c.want)
		}
	}
	// The same state is fine, and stale entries beyond n are ignored as
	// subtensor ignores them.
	in := base()
	in.Weights = [][]Entry{{{1, 100}, {7, 100}}}
	in.Bonds = [][]Entry{{{9, 100}}}
	if _, err := Epoch(in); err != nil {
		t.Fatalf("valid input: %v", err)
	}
	if out, err := Epoch(Input{Params: DefaultParams()}); err != nil || len(out.Emission) != 0 {
		t.Fatalf("empty subnet: %v %v", out, err)
	}
}

// The owner keeps its self-weight and its permit without stake; everyone
// else's self-weight is masked.
func TestOwnerSelfWeight(t *testing.T) {
	t.Parallel()
	in := Input{
		Stake: []uint64{0, 10, 0}, ValidatorPermit: []bool{false, true, false},
		LastUpdate: []uint64{5, 5, 5}, BlockAtRegistration: []uint64{0, 0, 0},
		Weights:      [][]Entry{{{0, 65535}}, {{1, 65535}, {2, 65535}}},
		CurrentBlock: 10, LastTempo: 1, Emission: 1000, Params: DefaultParams(),
	}
	in.Params.StakeThreshold = 5
	out, err := Epoch(in)
	if err != nil {
		t.Fatal(err)
	}
	// Without an owner, uid 1's self-weight is masked: it weights uid 2 only.
	if out.Incentive[1] != 0 || out.Incentive[2] != 65535 || out.ValidatorPermit[0] {
		t.Fatalf("no owner: incentive %v permits %v", out.Incentive, out.ValidatorPermit)
	}
	in.Params.OwnerUID = 1
	out, err = Epoch(in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Incentive[1] != 32767 || out.Incentive[2] != 32767 {
		t.Fatalf("owner 1: incentive %v, want its self-weight kept", out.Incentive)
	}
	in.Params.OwnerUID = 0 // the owner holds no stake, yet gets a permit
	if out, _ = Epoch(in); !out.ValidatorPermit[0] || out.StakeWeight[0] != 0 {
		t.Fatalf("owner 0: permits %v stake %v", out.ValidatorPermit, out.StakeWeight)
	}
}

func TestLastTempo(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ cur, tempo, step, want uint64 }{
		{100, 360, 0, 0}, {1000, 360, 0, 640}, {1000, 360, 990, 991},
	} {
		if got := LastTempo(c.cur, c.tempo, c.step); got != c.want {
			t.Errorf("LastTempo(%d, %d, %d) = %d, want %d", c.cur, c.tempo, c.step, got, c.want)
		}
	}
}
