package vtrust

import (
	"bytes"
	"fmt"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
)

// Spellings of decisions, as duel records write them.
var (
	contender = duel.Contender.String()
	champion  = duel.Champion.String()
	open      = duel.Open.String()
)

// Vote is what vTrust reads of one duel result a validator recorded: who
// played, who won, and who took each env. VoteOf makes it from a record
// that duel.Decode accepted; the rest of the record (challenges, counts,
// bounds) was checked there and plays no further part.
type Vote struct {
	Validator keys.PublicKey `json:"validator"`
	// Record is the duel result's CID, as the validator's block links it.
	Record codec.Link `json:"record"`
	// Start is the duel's start block number.
	Start     uint64    `json:"start"`
	Champion  duel.Side `json:"champion"`
	Contender duel.Side `json:"contender"`
	// Winner is "contender" or "champion".
	Winner string    `json:"winner"`
	Envs   []EnvVote `json:"envs"`
}

// EnvVote is who took one env: "contender", "champion" or "open" (the duel
// ended first).
type EnvVote struct {
	Env      string `json:"env"`
	Decision string `json:"decision"`
}

// VoteOf returns the vote of validator's duel result r, whose CID is
// record. r should have passed duel.Verify (duel.Decode does it).
func VoteOf(validator keys.PublicKey, record cid.Cid, r duel.Result) Vote {
	v := Vote{
		Validator: validator,
		Record:    codec.LinkTo(record),
		Start:     r.Start.Number,
		Champion:  r.Champion,
		Contender: r.Contender,
		Winner:    r.Winner,
		Envs:      make([]EnvVote, len(r.Envs)),
	}
	for i, e := range r.Envs {
		v.Envs[i] = EnvVote{Env: e.Env, Decision: e.Decision}
	}
	return v
}

// check enforces what a verified duel result guarantees, so that a vote
// made by hand (a test, another implementation's vector) is held to the
// same rules.
func (v *Vote) check() error {
	if err := codec.CheckAddress(v.Record.Cid); err != nil {
		return fmt.Errorf("record: %v", err)
	}
	if v.Champion.Hotkey == v.Contender.Hotkey {
		return fmt.Errorf("champion and contender are the same hotkey %s", v.Champion.Hotkey)
	}
	for _, s := range []duel.Side{v.Champion, v.Contender} {
		if len(s.ModelHash) > duel.MaxModelHash {
			return fmt.Errorf("model hash of %s has %d bytes, max %d", s.Hotkey, len(s.ModelHash), duel.MaxModelHash)
		}
	}
	if len(v.Envs) == 0 || len(v.Envs) > duel.MaxEnvs {
		return fmt.Errorf("%d envs, want 1 to %d", len(v.Envs), duel.MaxEnvs)
	}
	won, undecided := 0, 0
	for i, e := range v.Envs {
		if err := challenge.CheckEnvName(e.Env); err != nil {
			return fmt.Errorf("env %d: %w", i, err)
		}
		if i > 0 && v.Envs[i-1].Env >= e.Env {
			return fmt.Errorf("env %q after %q: envs must be unique and sorted", e.Env, v.Envs[i-1].Env)
		}
		switch e.Decision {
		case contender:
			won++
		case open:
			undecided++
		case champion:
		default:
			return fmt.Errorf("env %s: decision %q, want contender, champion or open", e.Env, clip(e.Decision))
		}
	}
	n := len(v.Envs)
	switch {
	case v.Winner == contender && 2*won > n:
	case v.Winner == champion && 2*(won+undecided) <= n:
	default:
		return fmt.Errorf("winner %q with %d of %d envs taken and %d open: not what the duel rule decides", clip(v.Winner), won, n, undecided)
	}
	return nil
}

// pair identifies the duel a vote is about: the same champion against the
// same contender, each with its model hash.
type pair struct {
	champion, contender string // hotkey || model hash
}

func sideKey(s duel.Side) string {
	return string(s.Hotkey[:]) + string(s.ModelHash)
}

func (v *Vote) pair() pair {
	return pair{sideKey(v.Champion), sideKey(v.Contender)}
}

// supersedes reports whether v replaces w as its validator's vote on their
// pair: the later start, then the smaller record CID.
func (v *Vote) supersedes(w *Vote) bool {
	if v.Start != w.Start {
		return v.Start > w.Start
	}
	return bytes.Compare(v.Record.Cid.Bytes(), w.Record.Cid.Bytes()) < 0
}

// compareSides orders sides by hotkey bytes, then model hash bytes.
func compareSides(a, b duel.Side) int {
	if c := bytes.Compare(a.Hotkey[:], b.Hotkey[:]); c != 0 {
		return c
	}
	return bytes.Compare(a.ModelHash, b.ModelHash)
}
