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
}

// groupVotes sorts votes into pairs, keeping each validator's latest vote
// on a pair (Vote.supersedes) and counting the others as superseded. Votes
// of hotkeys that are not validators are skipped and counted. The same
// record given twice counts once; given twice with different contents it
// is an error.
func groupVotes(votes []Vote, rank map[[32]byte]int, trust []Trust) ([]*group, int, error) {
	type recordKey struct {
		validator int
		record    string
	}
	unique := make(map[recordKey]*Vote, len(votes))
	ignored := 0
	for i := range votes {
		v := &votes[i]
		r, ok := rank[v.Validator]
		if !ok {
			ignored++
			continue
		}
		k := recordKey{r, v.Record.Cid.KeyString()}
		if w, seen := unique[k]; seen {
			if !sameVote(v, w) {
				return nil, 0, fmt.Errorf("%w: record %s of %s given twice with different contents", ErrInput, v.Record.Cid, v.Validator)
			}
			continue
		}
		unique[k] = v
	}
	type key struct {
		p         pair
		validator int
	}
	latest := make(map[key]*Vote, len(unique))
	for rk, v := range unique {
		k := key{v.pair(), rk.validator}
		w, seen := latest[k]
		switch {
		case !seen:
			latest[k] = v
			continue
		case v.supersedes(w):
			latest[k] = v
		}
		trust[rk.validator].Superseded++
	}
	byPair := make(map[pair]*group)
	for k, v := range latest {
		g := byPair[k.p]
		if g == nil {
			g = &group{champion: v.Champion, contender: v.Contender}
			byPair[k.p] = g
		}
		g.ballots = append(g.ballots, ballot{k.validator, v})
		trust[k.validator].Votes++
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
// scores every vote against it and sets DecisionPPM and VTrustPPM.
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
