package vtrust

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/duel"
)

// FuzzEpoch builds an epoch from the fuzzer's bytes (a few validators,
// miners and sides, votes of the epoch and standing ones on random pairs,
// with repeated records, changed copies, starts and winners that may break
// the rules, and outcomes) and checks that Epoch never panics, refuses
// only with ErrInput, and otherwise returns what spec/vtrust.md says: the
// same output for the input reversed, a walk from the first champion in
// which each step leaves the champion reached so far, follows a duel won
// by its contender at a start no earlier than the step before, and ends
// on the output's champion; weights for that champion alone.
func FuzzEpoch(f *testing.F) {
	f.Add([]byte("a dethrone across two epochs"))
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Add([]byte{255, 255, 255, 255, 0, 0, 0, 0, 128, 128, 64, 32, 16, 8, 4, 2, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := fuzzInput(data)
		out, err := Epoch(in)
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("error %v does not wrap ErrInput", err)
			}
			return
		}
		rev := in
		rev.Validators, rev.Miners = reversed(in.Validators), reversed(in.Miners)
		rev.Votes, rev.Standing, rev.Outcomes = reversed(in.Votes), reversed(in.Standing), reversed(in.Outcomes)
		again, err := Epoch(rev)
		if err != nil {
			t.Fatalf("the input reversed fails: %v", err)
		}
		a, _ := json.Marshal(out)
		b, _ := json.Marshal(again)
		if string(a) != string(b) {
			t.Fatalf("the output depends on the input's order:\n%s\n%s", a, b)
		}
		cur, since := in.Champion, uint64(0)
		for i, c := range out.Changes {
			d := out.Duels[c.Duel]
			if !c.From.Equal(cur) || !d.Champion.Equal(cur) || !c.To.Equal(d.Contender) ||
				d.Winner != contender || d.LatestStart < since {
				t.Fatalf("change %d %+v does not follow from %x at start %d: duel %+v", i, c, cur.Hotkey[:4], since, d)
			}
			cur, since = c.To, d.LatestStart
		}
		if !cur.Equal(out.Champion) {
			t.Fatalf("the walk ends on %x, the output names %x", cur.Hotkey[:4], out.Champion.Hotkey[:4])
		}
		if n := len(out.Weights.UIDs); n > 1 || n != len(out.Weights.Values) {
			t.Fatalf("weights %+v", out.Weights)
		}
		var votes, standing int
		for _, d := range out.Duels {
			votes, standing = votes+d.Votes, standing+d.Standing
		}
		var perValidator uint32
		for _, v := range out.Validators {
			perValidator += v.Votes + v.Standing
			if v.Scored > v.Votes || v.VotesAgreed > v.Scored || v.VTrustPPM > PPM {
				t.Fatalf("validator %+v", v)
			}
		}
		if int(perValidator) != votes || standing > votes {
			t.Fatalf("%d ballots in the duels (%d standing), %d by validator", votes, standing, perValidator)
		}
	})
}

// fuzzInput reads an epoch from data: each byte read is a choice, and
// the input ends when data does.
func fuzzInput(data []byte) Input {
	next := func(n int) int {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return int(b) % n
	}
	names := []string{"A", "B", "C", "D"}
	var in Input
	for i := range 1 + next(4) {
		in.Validators = append(in.Validators, Validator{Hotkey: hotkey(fmt.Sprintf("v%d", i)), Stake: uint64(next(4))})
	}
	for i := range 2 + next(3) {
		in.Miners = append(in.Miners, Miner{Hotkey: hotkey(names[i]), UID: uint16(i), CommitBlock: uint64(next(3))})
	}
	in.Champion = side(names[next(len(names))])
	if next(8) == 0 {
		in.Champion = duel.Side{}
	}
	letters := []string{"ccc", "cch", "chh", "hhh", "cco", "hho"}
	for n := 0; len(data) > 0 && n < 64; n++ {
		vi := next(5) // v4 is never a validator
		ci := next(4)
		champ, cont := names[ci], names[(ci+1+next(3))%4]
		l := letters[next(len(letters))]
		start := uint64(next(8))
		label := fmt.Sprintf("%d %s %s %d %s", vi, champ, cont, start, l)
		if next(32) == 0 {
			label = fmt.Sprintf("collides %d", next(2)) // the same record saying another thing
		}
		envs, winner := envsVote(l)
		vote := Vote{
			Validator: hotkey(fmt.Sprintf("v%d", vi)), Record: codec.LinkTo(cidOf(label)),
			Start: start, Champion: side(champ), Contender: side(cont), Winner: winner, Envs: envs,
		}
		if next(64) == 0 {
			vote.Winner = flip(vote.Winner)
		}
		if next(2) == 0 {
			in.Votes = append(in.Votes, vote)
		} else {
			in.Standing = append(in.Standing, vote)
		}
		if next(4) == 0 {
			verdict, reason := []Verdict{Agree, Disagree, Fault}[next(3)], ""
			if verdict != Agree {
				reason = "turn 0 reward: recorded 1, replay gives 0"
			}
			o, err := NewOutcome(hotkey(fmt.Sprintf("v%d", next(5))), vote.Validator, cidOf("block"), cidOf(fmt.Sprintf("t%d", next(4))), verdict, reason)
			if err == nil {
				in.Outcomes = append(in.Outcomes, o)
			}
		}
	}
	return in
}

func reversed[T any](s []T) []T {
	out := make([]T, len(s))
	for i, x := range s {
		out[len(s)-1-i] = x
	}
	return out
}
