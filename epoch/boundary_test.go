package epoch

import (
	"context"
	"encoding/json"
	"testing"
)

// TestEpochReadsStakeAtItsBoundary: two validators that compute the same
// epoch at different heads, with a stake change between, read the same
// stakes (those at the epoch's first block) and so agree on the output.
func TestEpochReadsStakeAtItsBoundary(t *testing.T) {
	w := newWorld(t, false)
	ctx := context.Background()
	if err := w.chain.Advance(tempo + 1); err != nil {
		t.Fatal(err)
	}
	ds := w.drivers(t)
	early, err := ds[0].Step(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	// After the boundary the operator gives validator 1 most of the stake.
	const moved = 5000
	if _, err := w.chain.Register(w.keys[1].Public(), moved, true); err != nil {
		t.Fatal(err)
	}
	if err := w.chain.Advance(2); err != nil {
		t.Fatal(err)
	}
	m, err := w.chain.Metagraph(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := m.Find(w.keys[1].Public()); n.Stake != moved {
		t.Fatalf("the head shows stake %d for validator 1, want %d", n.Stake, moved)
	}
	late, err := ds[1].Step(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range late.Output.Validators {
		if tr.Hotkey == w.keys[1].Public() && tr.Stake != stakes[1] {
			t.Errorf("the late validator read stake %d for validator 1, want %d (the boundary's)", tr.Stake, stakes[1])
		}
	}
	// Each auditor counts its own re-executions, so compare what the
	// epoch decides: every validator's stake and vTrust, the tallies, the
	// winner and the weights.
	a, _ := json.Marshal(decided(early))
	b, _ := json.Marshal(decided(late))
	if string(a) != string(b) {
		t.Errorf("the same epoch computed at two heads differs:\n%s\n%s", a, b)
	}
}

func decided(r Report) any {
	type trust struct {
		Hotkey string
		Stake  uint64
		VTrust uint32
	}
	var ts []trust
	for _, t := range r.Output.Validators {
		ts = append(ts, trust{t.Hotkey.String(), t.Stake, t.VTrustPPM})
	}
	return struct {
		Trust   []trust
		Rest    any
		Weights any
	}{ts, []any{r.Output.Duels, r.Output.Total, r.Output.Changes, r.Output.Champion}, r.Weights}
}
