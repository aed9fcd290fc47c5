package duel

import (
	"crypto/sha256"
	"testing"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/rng"
)

// scripted describes a duel played the way a validator plays one: every
// env the duel still needs gets one challenge per round, drawn with
// challenge.Derive from the start anchor, until the duel is decided.
type scripted struct {
	label string
	rule  Rule
	ratio uint32
	envs  []string
	// rates and draws are per env, in ppm, as in the simulation.
	rates, draws []uint32
}

var validatorKey = keys.PublicKey{0x56, 0x41, 0x4c}

func (s scripted) input(t testing.TB) Input {
	t.Helper()
	anchor := Anchor{Number: 4_200_000, Hash: sha256.Sum256([]byte("anchor " + s.label))}
	championModel, contenderModel := sha256.Sum256([]byte("champion model")), sha256.Sum256([]byte("contender model"))
	in := Input{
		Start:     anchor,
		Champion:  Side{Hotkey: keys.PublicKey{0xc1}, ModelHash: championModel[:]},
		Contender: Side{Hotkey: keys.PublicKey{0xc2}, ModelHash: contenderModel[:]},
		Rule:      s.rule,
		RatioPPM:  s.ratio,
		Envs:      make([]EnvInput, len(s.envs)),
	}
	d, err := NewDuel(s.rule, s.ratio, s.envs)
	if err != nil {
		t.Fatal(err)
	}
	streams := make([]*rng.Stream, len(s.envs))
	for i, e := range s.envs {
		in.Envs[i].Env = e
		streams[i] = rng.New(rng.Derive([32]byte(anchor.Hash), "outcomes "+e))
	}
	for !d.Done() {
		for _, e := range d.Need() {
			i := d.Index(e)
			id, err := challenge.Derive(anchor.Hash, validatorKey, e, 1, uint64(len(in.Envs[i].Samples)))
			if err != nil {
				t.Fatal(err)
			}
			u := streams[i].Uniform(PPM)
			o := Loss
			switch {
			case u < uint64(s.draws[i]):
				o = Draw
			case streams[i].Uniform(PPM) < uint64(s.rates[i]):
				o = Win
			}
			if err := d.Add(e, o); err != nil {
				t.Fatal(err)
			}
			in.Envs[i].Samples = append(in.Envs[i].Samples, Sample{ID: id, Outcome: o})
		}
	}
	return in
}

// vectorDuels are the duels of spec/vectors/duel-records.json; the tests
// of records use them too.
var vectorDuels = []scripted{
	{
		label: "contender wins early",
		rule:  Rule{ZMilli: 1960, Looks: []uint32{8, 16, 24}, MaxChallenges: 40},
		ratio: 520000,
		envs:  []string{"abd", "mult8", "sat"},
		rates: []uint32{950000, 900000, 500000},
		draws: []uint32{100000, 0, 300000},
	},
	{
		label: "champion keeps after draws",
		rule:  Rule{ZMilli: 1960, Looks: []uint32{8, 16, 24}, MaxChallenges: 30},
		ratio: 600000,
		envs:  []string{"abd", "mult8", "sat"},
		rates: []uint32{650000, 150000, 700000},
		draws: []uint32{500000, 100000, 200000},
	},
}
