package vtrust

import (
	"fmt"
	"slices"
	"strings"

	"github.com/affine-ledger/ledger/duel"
)

// group is every validator's vote on one pair, one vote per validator.
type group struct {
	champion, contender duel.Side
	ballots             []ballot // in validator order
	majority            string
	envs                []EnvVote
}

type ballot struct {
	validator int
	vote      *Vote
	// standing: cast in an earlier epoch, so counted but not scored.
	standing bool
	pair     pair
}

// groupVotes sorts the epoch's votes and the standing ones into pairs,
// keeping each validator's latest vote on a pair (Vote.supersedes), of
// either kind, and counting the others as superseded. Votes of hotkeys
// that are not validators are skipped and counted. The same record given
// twice counts once (as cast in the epoch when it is among votes); given
// twice with different contents it is an error.
func groupVotes(votes, standing []Vote, rank map[[32]byte]int, trust []Trust) ([]*group, int, error) {
	type recordKey struct {
		validator int
		record    string
	}
	unique := make(map[recordKey]ballot, len(votes)+len(standing))
	ignored := 0
	add := func(v *Vote, old bool) error {
		r, ok := rank[v.Validator]
		if !ok {
			ignored++
			return nil
		}
		k := recordKey{r, v.Record.Cid.KeyString()}
		if w, seen := unique[k]; seen {
			if !sameVote(v, w.vote) {
				return fmt.Errorf("%w: record %s of %s given twice with different contents", ErrInput, v.Record.Cid, v.Validator)
			}
			if !old {
				w.standing = false
				unique[k] = w
			}
			return nil
		}
		unique[k] = ballot{r, v, old, v.pair()}
		return nil
	}
	for i := range votes {
		if err := add(&votes[i], false); err != nil {
			return nil, 0, err
		}
	}
	for i := range standing {
		if err := add(&standing[i], true); err != nil {
			return nil, 0, err
		}
	}
	type key struct {
		p         pair
		validator int
	}
	latest := make(map[key]ballot, len(unique))
	for _, b := range unique {
		k := key{b.pair, b.validator}
		w, seen := latest[k]
		switch {
		case !seen:
			latest[k] = b
			continue
		case b.vote.supersedes(w.vote):
			latest[k] = b
		}
		trust[b.validator].Superseded++
	}
	byPair := make(map[pair]*group)
	for k, b := range latest {
		g := byPair[k.p]
		if g == nil {
			g = &group{champion: b.vote.Champion, contender: b.vote.Contender}
			byPair[k.p] = g
		}
		g.ballots = append(g.ballots, b)
		if b.standing {
			trust[k.validator].Standing++
		} else {
			trust[k.validator].Votes++
		}
	}
	groups := make([]*group, 0, len(byPair))
	for _, g := range byPair {
		slices.SortFunc(g.ballots, func(a, b ballot) int { return a.validator - b.validator })
		groups = append(groups, g)
	}
	slices.SortFunc(groups, func(a, b *group) int {
		if c := compareSides(a.champion, b.champion); c != 0 {
			return c
		}
		return compareSides(a.contender, b.contender)
	})
	return groups, ignored, nil
}

func sameVote(a, b *Vote) bool {
	return a.pair() == b.pair() && a.Start == b.Start && a.Winner == b.Winner && slices.Equal(a.Envs, b.Envs)
}

// agree finds each pair's reference majority, weighting validator i by
// stake × ReexecPPM (so a validator with a hard fault counts for nothing),
// scores every vote cast in the epoch against it and sets DecisionPPM and
// VTrustPPM. A standing vote weighs in the majority but is not scored: it
// was scored in its own epoch, and scoring it again would make one
// disagreement cost a validator trust for StandingEpochs epochs.
func agree(groups []*group, trust []Trust) {
	ref := make([]Weight, len(trust))
	for i, t := range trust {
		ref[i] = weightOf(t.Stake, t.ReexecPPM)
	}
	for _, g := range groups {
		var forW, againstW Weight
		for _, b := range g.ballots {
			if b.vote.Winner == contender {
				forW = forW.Add(ref[b.validator])
			} else {
				againstW = againstW.Add(ref[b.validator])
			}
		}
		g.majority = majority(forW, againstW)
		g.envs = envMajorities(g, ref)
		for _, b := range g.ballots {
			if b.standing {
				continue
			}
			t := &trust[b.validator]
			if g.majority != "" {
				t.Scored++
				if b.vote.Winner == g.majority {
					t.VotesAgreed++
				}
			}
			compareEnvs(b.vote, g.envs, t)
		}
	}
	for i := range trust {
		t := &trust[i]
		t.DecisionPPM = PPM
		if t.Scored > 0 {
			t.DecisionPPM = uint32(mulDiv(uint64(t.VotesAgreed), PPM, uint64(t.Scored)))
		}
		t.VTrustPPM = uint32(mulDiv(uint64(t.ReexecPPM), uint64(t.DecisionPPM), PPM))
	}
}

// majority returns the side that weighs strictly more, "" on a tie.
func majority(forW, againstW Weight) string {
	switch forW.Cmp(againstW) {
	case 1:
		return contender
	case -1:
		return champion
	}
	return ""
}

// envMajorities returns, for every env any vote of g names (in byte
// order), the reference majority among the votes that decided it.
func envMajorities(g *group, ref []Weight) []EnvVote {
	var names []string
	for _, b := range g.ballots {
		for _, e := range b.vote.Envs {
			names = append(names, e.Env)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	out := make([]EnvVote, len(names))
	for i, name := range names {
		var forW, againstW Weight
		for _, b := range g.ballots {
			switch decisionOf(b.vote, name) {
			case contender:
				forW = forW.Add(ref[b.validator])
			case champion:
				againstW = againstW.Add(ref[b.validator])
			}
		}
		out[i] = EnvVote{Env: name, Decision: majority(forW, againstW)}
	}
	return out
}

// compareEnvs counts v's decided envs that have a majority, and those that
// agree with it. Open envs abstain: the duel ended before they decided.
func compareEnvs(v *Vote, majorities []EnvVote, t *Trust) {
	for _, e := range v.Envs {
		if e.Decision == open {
			continue
		}
		i, found := slices.BinarySearchFunc(majorities, e.Env, func(m EnvVote, env string) int {
			return strings.Compare(m.Env, env)
		})
		if !found || majorities[i].Decision == "" {
			continue
		}
		t.EnvsCompared++
		if majorities[i].Decision == e.Decision {
			t.EnvsAgreed++
		}
	}
}

func decisionOf(v *Vote, env string) string {
	for _, e := range v.Envs {
		if e.Env == env {
			return e.Decision
		}
	}
	return open
}
