package vtrust

import (
	"fmt"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/rng"
	"github.com/affine-ledger/ledger/yuma"
)

// epochTarget is the budget for one vTrust + Yuma epoch at 64
// validators × 256 miners.
const epochTarget = 100 * time.Millisecond

// Synthetic epoch sizes: every validator runs every duel; each validator's
// ledger holds transcriptsPerValidator transcripts in the epoch (a duel of
// about 350 challenges per side, 2 transcripts per challenge, some 6 duels
// in a 72-minute tempo), each re-executed once by a peer.
const (
	benchValidators         = 64
	benchMiners             = 256
	benchDuels              = 16
	benchEnvs               = 5
	transcriptsPerValidator = 4096
)

// benchStandingDuels are the duels of the 23 epochs before, as many an
// epoch, each between two other miners, whose votes still stand; their
// champions (miners 17 to 216) are off the epoch's chain of duels (miners
// 0 to 16), which they leave as it is.
const benchStandingDuels = (StandingEpochs - 1) * benchDuels

// syntheticEpoch builds a 64 × 256 epoch: stakes as yuma.Synthetic draws
// them, a chain of duels from miner 0, two liars (one whose scores do not
// reproduce, one that flips every winner) and some soft disagreements.
func syntheticEpoch(seed [32]byte, stakes []uint64, transcripts int) Input {
	r := rng.New(rng.Derive(seed, "vtrust synthetic"))
	in := Input{}
	names := make([]string, benchValidators)
	for i := range names {
		names[i] = fmt.Sprintf("validator %d", i)
		in.Validators = append(in.Validators, Validator{Hotkey: hotkey(names[i]), Stake: stakes[i]})
	}
	miners := make([]string, benchMiners)
	for j := range miners {
		miners[j] = fmt.Sprintf("miner %d", j)
		in.Miners = append(in.Miners, Miner{Hotkey: hotkey(miners[j]), UID: uint16(benchValidators + j), CommitBlock: r.Uniform(10_000)})
	}
	in.Champion = side(miners[0])
	cur := miners[0]
	for d := range benchDuels {
		cont := miners[1+d]
		truth := champion
		if r.Chance(1, 3) {
			truth = contender
		}
		for i, v := range names {
			winner := truth
			if i == 1 {
				winner = flip(truth)
			}
			envs, _ := envsVote(envsFor(r, benchEnvs, winner))
			in.Votes = append(in.Votes, Vote{
				Validator: hotkey(v),
				Record:    codec.LinkTo(cidOf(fmt.Sprintf("duel %d of %s", d, v))),
				Start:     9_700 + uint64(d),
				Champion:  side(cur),
				Contender: side(cont),
				Winner:    winner,
				Envs:      envs,
			})
		}
		if truth == contender {
			cur = cont
		}
	}
	for d := range benchStandingDuels {
		champ, cont := miners[17+d%200], miners[17+(d%200+1+d/200)%200]
		truth := []string{champion, contender}[r.Uniform(2)]
		for _, v := range names {
			envs, _ := envsVote(envsFor(r, benchEnvs, truth))
			in.Standing = append(in.Standing, Vote{
				Validator: hotkey(v),
				Record:    codec.LinkTo(cidOf(fmt.Sprintf("standing duel %d of %s", d, v))),
				Start:     9_700 - 360*uint64(1+d/benchDuels) + uint64(d%benchDuels),
				Champion:  side(champ), Contender: side(cont),
				Winner: truth, Envs: envs,
			})
		}
	}
	block := cidOf("a block")
	for i, v := range names {
		auditor := hotkey(names[(i+1)%benchValidators])
		for k := range transcripts {
			o := Outcome{
				Type: OutcomeType, Version: OutcomeVersion,
				Auditor: auditor, Validator: hotkey(v),
				Block: codec.LinkTo(block), Record: codec.LinkTo(cidOf(fmt.Sprintf("%s transcript %d", v, k))),
				Verdict: Agree,
			}
			switch {
			case i == 0 && k%256 == 0:
				o.Verdict, o.Reason = Fault, "reward: recorded 1, replay gives 0"
			case r.Chance(1, 1000):
				o.Verdict, o.Reason = Disagree, "seed: no recorded anchor derives it"
			}
			in.Outcomes = append(in.Outcomes, o)
		}
	}
	return in
}

// BenchmarkEpoch64x256 is one epoch's consensus work at 64 validators ×
// 256 miners: vTrust over the epoch's 262144 re-execution outcomes, its
// 1024 duel results and 23552 standing ones, the winner and its weights, then the Yuma epoch of
// yuma.Synthetic(64, 256, seed). It reports the wall time per epoch as a
// fraction of the 100 ms target, the process CPU time per epoch (garbage
// collection included) likewise, and the share of wall time spent in
// vTrust.
func BenchmarkEpoch64x256(b *testing.B) {
	seed := rng.Derive([32]byte{}, "vtrust bench")
	chain := yuma.Synthetic(benchValidators, benchMiners, seed)
	in := syntheticEpoch(seed, chain.Stake[:benchValidators], transcriptsPerValidator)
	b.ReportAllocs()
	b.ResetTimer()
	var inVTrust time.Duration
	cpu := cpuTime()
	for range b.N {
		start := time.Now()
		out, err := Epoch(in)
		if err != nil {
			b.Fatal(err)
		}
		inVTrust += time.Since(start)
		if len(out.Weights.UIDs) != 1 {
			b.Fatalf("weights %+v", out.Weights)
		}
		if _, err := yuma.Epoch(chain); err != nil {
			b.Fatal(err)
		}
	}
	cpu = cpuTime() - cpu
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(epochTarget), "of-100ms-target")
	b.ReportMetric(float64(cpu)/float64(b.N)/float64(epochTarget), "cpu-of-100ms-target")
	b.ReportMetric(float64(inVTrust)/float64(b.Elapsed()), "vtrust-share")
}

// TestSyntheticEpoch checks that the benchmark measures what it claims:
// the liars are caught and the honest chain of duels decides the winner
// (with fewer transcripts, so that it stays quick under the race
// detector).
func TestSyntheticEpoch(t *testing.T) {
	t.Parallel()
	seed := rng.Derive([32]byte{}, "vtrust bench")
	chain := yuma.Synthetic(benchValidators, benchMiners, seed)
	in := syntheticEpoch(seed, chain.Stake[:benchValidators], 1024)
	out, err := Epoch(in)
	if err != nil {
		t.Fatal(err)
	}
	faulty, flipper := trustOf(t, out, "validator 0"), trustOf(t, out, "validator 1")
	if !faulty.HardFault || faulty.VTrustPPM != 0 || flipper.DecisionPPM != 0 {
		t.Fatalf("liars not caught: %+v / %+v", faulty, flipper)
	}
	if len(out.Changes) == 0 || len(out.Duels) != benchDuels+benchStandingDuels {
		t.Fatalf("%d duels, %d changes", len(out.Duels), len(out.Changes))
	}
	for _, tr := range out.Validators[2:] {
		if tr.DecisionPPM != PPM && tr.Hotkey != faulty.Hotkey && tr.Hotkey != flipper.Hotkey {
			t.Fatalf("honest validator with decision agreement %d", tr.DecisionPPM)
		}
	}
	if uid := out.Weights.UIDs[0]; int(uid) >= len(chain.Stake) || uid < benchValidators {
		t.Fatalf("winner uid %d is not a miner of the synthetic subnet", uid)
	}
}
