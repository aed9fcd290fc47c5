package vtrust

import (
	"errors"
	"slices"
	"testing"

	"github.com/affine-ledger/ledger/codec"
)

// miners registers a..z style miners with uid i and commitment block
// 100 + i, so earlier names commit earlier.
func (w *world) miners(names ...string) *world {
	for i, n := range names {
		w.miner(n, uint16(i), uint64(100+i))
	}
	return w
}

func TestEpochTable(t *testing.T) {
	t.Parallel()
	type want struct {
		champion string
		uid      int // -1: no weights
		changes  []string
		vtrust   map[string]uint32
		reexec   map[string]uint32
		decision map[string]uint32
	}
	cases := []struct {
		name  string
		world *world
		want  want
	}{
		{
			name: "honest validators agree and the contender dethrones",
			world: newWorld("A").miners("A", "B").
				validator("v1", 100).validator("v2", 200).validator("v3", 300).
				vote("v1", "A", "B", "cch").vote("v2", "A", "B", "cco").vote("v3", "A", "B", "hcc"),
			want: want{champion: "B", uid: 1, changes: []string{"B"},
				vtrust: map[string]uint32{"v1": PPM, "v2": PPM, "v3": PPM}},
		},
		{
			name:  "no decisions: the previous champion keeps the weights",
			world: newWorld("A").miners("A", "B").validator("v1", 100).validator("v2", 100),
			want: want{champion: "A", uid: 0, changes: []string{},
				vtrust: map[string]uint32{"v1": PPM, "v2": PPM}},
		},
		{
			name: "the champion keeps when the majority says so",
			world: newWorld("A").miners("A", "B").
				validator("v1", 100).validator("v2", 100).validator("v3", 100).
				vote("v1", "A", "B", "hhc").vote("v2", "A", "B", "chh").vote("v3", "A", "B", "ccc"),
			want: want{champion: "A", uid: 0, changes: []string{},
				vtrust: map[string]uint32{"v1": PPM, "v2": PPM, "v3": 0}},
		},
		{
			name: "a score liar gets vTrust 0 and its vote does not count, whatever its stake",
			world: newWorld("A").miners("A", "B").
				validator("honest1", 300).validator("honest2", 300).validator("liar", 1000).
				vote("honest1", "A", "B", "hhc").vote("honest2", "A", "B", "hho").vote("liar", "A", "B", "ccc").
				outcome("honest1", "liar", "liar transcript 7", Fault).
				outcome("honest2", "liar", "liar transcript 8", Agree).
				outcome("liar", "honest1", "honest1 transcript 1", Agree),
			want: want{champion: "A", uid: 0, changes: []string{},
				reexec:   map[string]uint32{"liar": 0, "honest1": PPM, "honest2": PPM},
				decision: map[string]uint32{"liar": 0, "honest1": PPM, "honest2": PPM},
				vtrust:   map[string]uint32{"liar": 0, "honest1": PPM, "honest2": PPM}},
		},
		{
			name: "a validator that always disagrees gets decision agreement 0",
			world: newWorld("A").miners("A", "B", "C", "D").
				validator("v1", 100).validator("v2", 100).validator("odd", 150).
				vote("v1", "A", "B", "hhh").vote("v2", "A", "B", "hhc").vote("odd", "A", "B", "ccc").
				vote("v1", "A", "C", "hhh").vote("v2", "A", "C", "hch").vote("odd", "A", "C", "cch").
				vote("v1", "A", "D", "hhh").vote("v2", "A", "D", "hhh").vote("odd", "A", "D", "ccc"),
			want: want{champion: "A", uid: 0, changes: []string{},
				vtrust: map[string]uint32{"v1": PPM, "v2": PPM, "odd": 0}},
		},
		{
			name: "floors: re-execution 1/3 times decisions 2/3",
			world: newWorld("A").miners("A", "B", "C", "D").
				validator("x", 10).validator("big", 1000).
				outcome("big", "x", "t1", Agree).outcome("big", "x", "t2", Disagree).outcome("big", "x", "t3", Disagree).
				vote("big", "A", "B", "hhh").vote("x", "A", "B", "hhh").
				vote("big", "A", "C", "hhh").vote("x", "A", "C", "hhh").
				vote("big", "A", "D", "hhh").vote("x", "A", "D", "ccc"),
			want: want{champion: "A", uid: 0, changes: []string{},
				reexec:   map[string]uint32{"x": 333_333},
				decision: map[string]uint32{"x": 666_666},
				// floor(333333 * 666666 / 10^6) = floor(222221.777778)
				vtrust: map[string]uint32{"x": 222_221, "big": PPM}},
		},
		{
			name: "exactly half of the trusted stake does not dethrone",
			world: newWorld("A").miners("A", "B").
				validator("v1", 100).validator("v2", 100).
				vote("v1", "A", "B", "ccc").vote("v2", "A", "B", "hhh"),
			want: want{champion: "A", uid: 0, changes: []string{},
				// a tie has no reference majority: neither is scored
				vtrust: map[string]uint32{"v1": PPM, "v2": PPM}},
		},
		{
			name: "a duel only a small validator ran cannot crown its contender",
			world: newWorld("A").miners("A", "B", "F").
				validator("v1", 100).validator("v2", 100).validator("small", 50).
				vote("v1", "A", "B", "hhh").vote("v2", "A", "B", "hhh").vote("small", "A", "B", "hhh").
				vote("small", "A", "F", "ccc"),
			want: want{champion: "A", uid: 0, changes: []string{},
				vtrust: map[string]uint32{"v1": PPM, "v2": PPM, "small": PPM}},
		},
		{
			name: "a chain of dethrones ends at the last champion",
			world: newWorld("A").miners("A", "B", "C", "D").
				validator("v1", 100).validator("v2", 100).
				vote("v1", "A", "B", "cch").vote("v2", "A", "B", "ccc").
				vote("v1", "B", "C", "ccc").vote("v2", "B", "C", "chc").
				vote("v1", "C", "D", "hhh").vote("v2", "C", "D", "hhc"),
			want: want{champion: "C", uid: 2, changes: []string{"B", "C"},
				vtrust: map[string]uint32{"v1": PPM, "v2": PPM}},
		},
		{
			name: "two contenders beat the champion: the earlier commitment wins",
			world: newWorld("A").miner("A", 0, 10).miner("X", 1, 200).miner("Y", 2, 150).
				validator("v1", 100).
				vote("v1", "A", "X", "ccc").vote("v1", "A", "Y", "ccc"),
			want: want{champion: "Y", uid: 2, changes: []string{"Y"},
				vtrust: map[string]uint32{"v1": PPM}},
		},
		{
			name: "equal commitments: the smaller hotkey wins",
			world: newWorld("A").miner("A", 0, 10).miner("X", 1, 150).miner("Y", 2, 150).
				validator("v1", 100).
				vote("v1", "A", "X", "ccc").vote("v1", "A", "Y", "ccc"),
			want: want{champion: smallerHotkey("X", "Y"), uid: map[string]int{"X": 1, "Y": 2}[smallerHotkey("X", "Y")],
				changes: []string{smallerHotkey("X", "Y")}, vtrust: map[string]uint32{"v1": PPM}},
		},
		{
			name: "a contender without a uid cannot be crowned",
			world: newWorld("A").miners("A").
				validator("v1", 100).vote("v1", "A", "B", "ccc"),
			want: want{champion: "A", uid: 0, changes: []string{}, vtrust: map[string]uint32{"v1": PPM}},
		},
		{
			name: "a champion without a uid gets no weights",
			world: newWorld("A").miners("B").
				validator("v1", 100).vote("v1", "A", "C", "hhh"),
			want: want{champion: "A", uid: -1, changes: []string{}, vtrust: map[string]uint32{"v1": PPM}},
		},
		{
			name: "a dethrone and its reverse are each followed once",
			world: newWorld("A").miners("A", "B").
				validator("v1", 100).
				vote("v1", "A", "B", "ccc").vote("v1", "B", "A", "ccc"),
			want: want{champion: "A", uid: 0, changes: []string{"B", "A"}, vtrust: map[string]uint32{"v1": PPM}},
		},
		{
			name: "only the latest of a validator's results on a pair counts",
			world: newWorld("A").miners("A", "B").
				validator("v1", 100).validator("v2", 100).
				voteAt("v1", "A", "B", "ccc", 900).voteAt("v1", "A", "B", "hhh", 950).
				vote("v2", "A", "B", "hhh"),
			want: want{champion: "A", uid: 0, changes: []string{}, vtrust: map[string]uint32{"v1": PPM, "v2": PPM}},
		},
		{
			name: "a faulted majority does not define the reference",
			world: newWorld("A").miners("A", "B").
				validator("honest", 400).validator("faulted", 600).
				vote("honest", "A", "B", "hhh").vote("faulted", "A", "B", "ccc").
				outcome("honest", "faulted", "bad transcript", Fault),
			want: want{champion: "A", uid: 0, changes: []string{},
				decision: map[string]uint32{"honest": PPM, "faulted": 0},
				vtrust:   map[string]uint32{"honest": PPM, "faulted": 0}},
		},
		{
			name: "no champion yet: nothing to follow, no weights",
			world: newWorld("").miners("A", "B").
				validator("v1", 100).vote("v1", "A", "B", "ccc"),
			want: want{champion: "", uid: -1, changes: []string{}, vtrust: map[string]uint32{"v1": PPM}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := c.world.run(t)
			names := []string{"A", "B", "C", "D", "F", "X", "Y"}
			if c.want.champion == "" {
				if out.Champion.Hotkey != ([32]byte{}) {
					t.Errorf("champion %s, want none", nameOf(out.Champion, names...))
				}
			} else if !out.Champion.Equal(side(c.want.champion)) {
				t.Errorf("champion %s, want %s", nameOf(out.Champion, names...), c.want.champion)
			}
			var changes []string
			for _, ch := range out.Changes {
				changes = append(changes, nameOf(ch.To, names...))
			}
			if !slices.Equal(changes, c.want.changes) && !(len(changes) == 0 && len(c.want.changes) == 0) {
				t.Errorf("changes %v, want %v", changes, c.want.changes)
			}
			switch {
			case c.want.uid < 0 && len(out.Weights.UIDs) != 0:
				t.Errorf("weights %+v, want none", out.Weights)
			case c.want.uid >= 0 && (!slices.Equal(out.Weights.UIDs, []uint16{uint16(c.want.uid)}) || !slices.Equal(out.Weights.Values, []uint16{65535})):
				t.Errorf("weights %+v, want uid %d = 65535", out.Weights, c.want.uid)
			}
			for name, ppm := range c.want.vtrust {
				if got := trustOf(t, out, name).VTrustPPM; got != ppm {
					t.Errorf("%s: vtrust %d, want %d", name, got, ppm)
				}
			}
			for name, ppm := range c.want.reexec {
				if got := trustOf(t, out, name).ReexecPPM; got != ppm {
					t.Errorf("%s: reexec %d, want %d", name, got, ppm)
				}
			}
			for name, ppm := range c.want.decision {
				if got := trustOf(t, out, name).DecisionPPM; got != ppm {
					t.Errorf("%s: decision %d, want %d", name, got, ppm)
				}
			}
		})
	}
}

func smallerHotkey(a, b string) string {
	ha, hb := hotkey(a), hotkey(b)
	if string(ha[:]) < string(hb[:]) {
		return a
	}
	return b
}

func TestEpochEvidence(t *testing.T) {
	t.Parallel()
	w := newWorld("A").miners("A").validator("liar", 10).validator("a1", 10).validator("a2", 10)
	for i := range MaxEvidence + 4 {
		w.outcome("a1", "liar", "liar t"+string(rune('a'+i)), Fault)
	}
	// The same record judged by another auditor counts once.
	w.outcome("a2", "liar", "liar ta", Fault).outcome("a2", "liar", "liar ok", Agree)
	out := w.run(t)
	tr := trustOf(t, out, "liar")
	if !tr.HardFault || tr.Faulted != MaxEvidence+4 || tr.Agreed != 1 || tr.ReexecPPM != 0 || tr.VTrustPPM != 0 {
		t.Fatalf("liar: %+v", tr)
	}
	if len(tr.Evidence) != MaxEvidence {
		t.Fatalf("%d evidence outcomes, want %d", len(tr.Evidence), MaxEvidence)
	}
	for i, o := range tr.Evidence {
		if o.Verdict != Fault || o.Validator != hotkey("liar") {
			t.Fatalf("evidence %d: %+v", i, o)
		}
		if i > 0 && string(tr.Evidence[i-1].Record.Cid.Bytes()) >= string(o.Record.Cid.Bytes()) {
			t.Fatalf("evidence not in increasing record order at %d", i)
		}
	}
}

func TestEpochMergesVerdicts(t *testing.T) {
	t.Parallel()
	// One record judged agree by one auditor and disagree by another counts
	// once, as a disagreement; a fault on it from a third makes it a fault.
	w := newWorld("A").validator("v", 10).validator("a1", 10).validator("a2", 10).validator("a3", 10).
		outcome("a1", "v", "r", Agree).outcome("a2", "v", "r", Disagree).outcome("a1", "v", "s", Agree)
	tr := trustOf(t, w.run(t), "v")
	if tr.Agreed != 1 || tr.Disagreed != 1 || tr.Faulted != 0 || tr.ReexecPPM != 500_000 {
		t.Fatalf("merged: %+v", tr)
	}
	w.outcome("a3", "v", "r", Fault)
	tr = trustOf(t, w.run(t), "v")
	if tr.Agreed != 1 || tr.Disagreed != 0 || tr.Faulted != 1 || tr.VTrustPPM != 0 {
		t.Fatalf("with fault: %+v", tr)
	}
}

func TestEpochCountsVotes(t *testing.T) {
	t.Parallel()
	w := newWorld("A").miners("A", "B").validator("v1", 100).validator("v2", 100).
		voteAt("v1", "A", "B", "hhh", 1).voteAt("v1", "A", "B", "hhh", 2).voteAt("v1", "A", "B", "ccc", 3).
		vote("v2", "A", "B", "hhh").vote("stranger", "A", "B", "ccc")
	w.in.Votes = append(w.in.Votes, w.in.Votes[0]) // the same record twice counts once
	out := w.run(t)
	v1 := trustOf(t, out, "v1")
	if v1.Votes != 1 || v1.Superseded != 2 || v1.Scored != 0 {
		t.Fatalf("v1: %+v", v1)
	}
	if out.IgnoredVotes != 1 {
		t.Fatalf("ignored %d votes, want 1", out.IgnoredVotes)
	}
	if len(out.Duels) != 1 || out.Duels[0].Votes != 2 || out.Duels[0].Majority != "" {
		t.Fatalf("duels: %+v", out.Duels)
	}
	// v1's latest says contender, v2 champion: equal stake, no majority.
	if out.Duels[0].For != out.Duels[0].Against || out.Duels[0].Winner != champion {
		t.Fatalf("duel: %+v", out.Duels[0])
	}
}

func TestEpochEnvAgreement(t *testing.T) {
	t.Parallel()
	// Env majorities: abd contender (v1+v2 against v3), coin champion
	// (v2+v3 against v1), mult8 champion (v2+v3; v1 left it open).
	w := newWorld("A").miners("A", "B").validator("v1", 100).validator("v2", 100).validator("v3", 100).
		vote("v1", "A", "B", "cco").vote("v2", "A", "B", "chh").vote("v3", "A", "B", "hhh")
	out := w.run(t)
	d := out.Duels[0]
	want := []EnvVote{{"abd", contender}, {"coin", champion}, {"mult8", champion}}
	if !slices.Equal(d.Envs, want) {
		t.Fatalf("env majorities %v, want %v", d.Envs, want)
	}
	for name, w := range map[string][2]uint32{"v1": {2, 1}, "v2": {3, 3}, "v3": {3, 2}} {
		tr := trustOf(t, out, name)
		if tr.EnvsCompared != w[0] || tr.EnvsAgreed != w[1] {
			t.Errorf("%s: envs compared %d agreed %d, want %d and %d", name, tr.EnvsCompared, tr.EnvsAgreed, w[0], w[1])
		}
	}
	// Env disagreement does not lower vTrust: v1 lost the winner vote
	// (contender against a champion majority), the others did not.
	for name, ppm := range map[string]uint32{"v1": 0, "v2": PPM, "v3": PPM} {
		if got := trustOf(t, out, name).VTrustPPM; got != ppm {
			t.Errorf("%s: vtrust %d, want %d", name, got, ppm)
		}
	}
}

func TestEpochRejects(t *testing.T) {
	t.Parallel()
	base := func() *world {
		return newWorld("A").miners("A", "B").validator("v1", 100).vote("v1", "A", "B", "ccc").outcome("v2", "v1", "t", Agree)
	}
	cases := []struct {
		name string
		edit func(in *Input)
	}{
		{"duplicate validator", func(in *Input) { in.Validators = append(in.Validators, in.Validators[0]) }},
		{"zero validator", func(in *Input) { in.Validators = append(in.Validators, Validator{Stake: 1}) }},
		{"duplicate miner", func(in *Input) { in.Miners = append(in.Miners, Miner{Hotkey: in.Miners[0].Hotkey, UID: 9}) }},
		{"duplicate uid", func(in *Input) { in.Miners = append(in.Miners, Miner{Hotkey: hotkey("Z"), UID: 0}) }},
		{"winner against the envs", func(in *Input) { in.Votes[0].Winner = champion }},
		{"unknown winner", func(in *Input) { in.Votes[0].Winner = "draw" }},
		{"unknown env decision", func(in *Input) { in.Votes[0].Envs[1].Decision = "maybe" }},
		{"unsorted envs", func(in *Input) { in.Votes[0].Envs[0].Env = "zzz" }},
		{"bad env name", func(in *Input) { in.Votes[0].Envs[0].Env = "Abd" }},
		{"no envs", func(in *Input) { in.Votes[0].Envs = nil }},
		{"same hotkeys", func(in *Input) { in.Votes[0].Contender = in.Votes[0].Champion }},
		{"null record", func(in *Input) { in.Votes[0].Record = codec.Link{} }},
		{"record twice, different contents", func(in *Input) {
			v := in.Votes[0]
			v.Envs = []EnvVote{{"abd", champion}, {"coin", champion}, {"mult8", champion}}
			v.Winner = champion
			in.Votes = append(in.Votes, v)
		}},
		{"bad outcome", func(in *Input) { in.Outcomes[0].Verdict = "maybe" }},
		{"self audit", func(in *Input) { in.Outcomes[0].Auditor = in.Outcomes[0].Validator }},
	}
	if _, err := Epoch(base().in); err != nil {
		t.Fatalf("base input: %v", err)
	}
	for _, c := range cases {
		w := base()
		c.edit(&w.in)
		if _, err := Epoch(w.in); !errors.Is(err, ErrInput) {
			t.Errorf("%s: error %v, want ErrInput", c.name, err)
		}
	}
}
