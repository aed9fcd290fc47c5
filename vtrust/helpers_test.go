package vtrust

import (
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
)

// Test worlds are built from names: a hotkey is the SHA-256 of its name, a
// record's CID the CID of its label.

func hotkey(name string) keys.PublicKey {
	return keys.PublicKey(sha256.Sum256([]byte("hotkey " + name)))
}

func side(name string) duel.Side {
	h := sha256.Sum256([]byte("model " + name))
	return duel.Side{Hotkey: hotkey(name), ModelHash: h[:8]}
}

func cidOf(label string) cid.Cid { return codec.Sum([]byte(label)) }

// envNames are the envs of test duels, in byte order.
var envNames = []string{"abd", "coin", "mult8", "sat", "tictactoe"}

// world builds an Input.
type world struct {
	in    Input
	votes int
}

func newWorld(champion string) *world {
	w := &world{}
	if champion != "" {
		w.in.Champion = side(champion)
	}
	return w
}

func (w *world) validator(name string, stake uint64) *world {
	w.in.Validators = append(w.in.Validators, Validator{Hotkey: hotkey(name), Stake: stake})
	return w
}

func (w *world) miner(name string, uid uint16, commit uint64) *world {
	w.in.Miners = append(w.in.Miners, Miner{Hotkey: hotkey(name), UID: uid, CommitBlock: commit})
	return w
}

// envsVote spells per-env decisions as letters: c (contender), h
// (champion), o (open). The winner follows from them by the duel rule.
func envsVote(envs string) ([]EnvVote, string) {
	out := make([]EnvVote, len(envs))
	won, undecided := 0, 0
	for i, l := range envs {
		d := map[rune]string{'c': contender, 'h': champion, 'o': open}[l]
		if d == "" {
			panic(fmt.Sprintf("bad env letter %q", l))
		}
		won += map[bool]int{true: 1}[d == contender]
		undecided += map[bool]int{true: 1}[d == open]
		out[i] = EnvVote{Env: envNames[i], Decision: d}
	}
	switch n := len(envs); {
	case 2*won > n:
		return out, contender
	case 2*(won+undecided) <= n:
		return out, champion
	}
	panic("undecided duel " + envs)
}

// vote records validator's result of champion against contender.
func (w *world) vote(validator, champ, cont, envs string) *world {
	return w.voteAt(validator, champ, cont, envs, 1000)
}

func (w *world) voteAt(validator, champ, cont, envs string, start uint64) *world {
	w.in.Votes = append(w.in.Votes, w.newVote(validator, champ, cont, envs, start))
	return w
}

// standing records a result validator cast in an earlier epoch, which
// still counts in this one (Input.Standing).
func (w *world) standing(validator, champ, cont, envs string) *world {
	return w.standingAt(validator, champ, cont, envs, 900)
}

func (w *world) standingAt(validator, champ, cont, envs string, start uint64) *world {
	w.in.Standing = append(w.in.Standing, w.newVote(validator, champ, cont, envs, start))
	return w
}

// cast records a vote of this epoch, or a standing one.
func (w *world) cast(standing bool, validator, champ, cont, envs string, start uint64) *world {
	if standing {
		return w.standingAt(validator, champ, cont, envs, start)
	}
	return w.voteAt(validator, champ, cont, envs, start)
}

func (w *world) newVote(validator, champ, cont, envs string, start uint64) Vote {
	w.votes++
	e, winner := envsVote(envs)
	return Vote{
		Validator: hotkey(validator),
		Record:    codec.LinkTo(cidOf(fmt.Sprintf("vote %d %s %s %s %s", w.votes, validator, champ, cont, envs))),
		Start:     start,
		Champion:  side(champ),
		Contender: side(cont),
		Winner:    winner,
		Envs:      e,
	}
}

// outcome records auditor's verdict on record of validator.
func (w *world) outcome(auditor, validator, record string, v Verdict) *world {
	reason := ""
	if v != Agree {
		reason = "turn 0 reward: recorded 1, replay gives 0"
	}
	o, err := NewOutcome(hotkey(auditor), hotkey(validator), cidOf("block of "+record), cidOf(record), v, reason)
	if err != nil {
		panic(err)
	}
	w.in.Outcomes = append(w.in.Outcomes, o)
	return w
}

func (w *world) run(t testing.TB) Output {
	t.Helper()
	out, err := Epoch(w.in)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// trustOf returns the Trust of the named validator.
func trustOf(t testing.TB, out Output, name string) Trust {
	t.Helper()
	for _, v := range out.Validators {
		if v.Hotkey == hotkey(name) {
			return v
		}
	}
	t.Fatalf("no validator %s in the output", name)
	return Trust{}
}

// nameOf finds which of names a side belongs to.
func nameOf(s duel.Side, names ...string) string {
	for _, n := range names {
		if s.Equal(side(n)) {
			return n
		}
	}
	return fmt.Sprintf("%x", s.Hotkey[:4])
}
