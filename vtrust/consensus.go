package vtrust

import (
	"bytes"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
)

// decide weighs every vote by its validator's vTrust × stake. The total is
// over every validator of the epoch, whether it voted or not; a contender
// takes a duel only with more than half of it, so that a pair only some
// validators ran (or that someone made up, in an epoch where nobody else
// ran anything) cannot crown anyone without most of the trusted stake
// behind it. Validators that run no duels thus count against every
// dethrone: the champion stays, which is the safe way to fail.
func decide(groups []*group, trust []Trust) ([]Duel, Weight) {
	w := make([]Weight, len(trust))
	var total Weight
	for i, t := range trust {
		w[i] = weightOf(t.Stake, t.VTrustPPM)
		total = total.Add(w[i])
	}
	duels := make([]Duel, len(groups))
	for gi, g := range groups {
		d := Duel{
			Champion: g.champion, Contender: g.contender,
			Votes: len(g.ballots), Majority: g.majority, Envs: g.envs,
			Winner: champion,
		}
		for _, b := range g.ballots {
			if b.standing {
				d.Standing++
			}
			d.LatestStart = max(d.LatestStart, b.vote.Start)
			if b.vote.Winner == contender {
				d.For = d.For.Add(w[b.validator])
			} else {
				d.Against = d.Against.Add(w[b.validator])
			}
		}
		if d.For.Double().Cmp(total) > 0 {
			d.Winner = contender
		}
		duels[gi] = d
	}
	return duels, total
}

// path follows dethrones from the epoch's first champion: while some duel
// not yet followed has the current champion as its champion, was won by
// its contender, that contender holds a uid and its latest start is no
// earlier than that of the duel followed before it, the contender becomes
// champion. Among several such duels the contender with the earliest
// commitment wins, then the smaller hotkey, then the smaller model hash.
// Each duel is followed at most once, so the walk ends.
//
// The order in time matters once votes stand for several epochs: a
// dethrone (A, B) followed by its reverse (B, A) both stand for a while,
// and a walk from B free to take them in any order would go B, A, B,
// undoing the reverse with the stale dethrone, while a walk from A ends
// on A. Taken in time order, every epoch's walk replays them as they
// happened and ends on A, wherever it starts.
func path(first duel.Side, duels []Duel, miners []Miner) ([]Change, duel.Side) {
	byHotkey := make(map[keys.PublicKey]*Miner, len(miners))
	for i := range miners {
		byHotkey[miners[i].Hotkey] = &miners[i]
	}
	cur := first
	changes := []Change{}
	if cur.Hotkey == (keys.PublicKey{}) {
		return changes, cur
	}
	used := make([]bool, len(duels))
	var since uint64 // the latest start of the duel followed last
	for {
		best := -1
		for i := range duels {
			d := &duels[i]
			if used[i] || d.Winner != contender || !d.Champion.Equal(cur) || byHotkey[d.Contender.Hotkey] == nil || d.LatestStart < since {
				continue
			}
			if best < 0 || earlier(d.Contender, duels[best].Contender, byHotkey) {
				best = i
			}
		}
		if best < 0 {
			return changes, cur
		}
		used[best] = true
		changes = append(changes, Change{Duel: best, From: cur, To: duels[best].Contender})
		cur, since = duels[best].Contender, duels[best].LatestStart
	}
}

// earlier orders contenders: earliest commitment, then hotkey bytes, then
// model hash bytes.
func earlier(a, b duel.Side, miners map[keys.PublicKey]*Miner) bool {
	ca, cb := miners[a.Hotkey].CommitBlock, miners[b.Hotkey].CommitBlock
	if ca != cb {
		return ca < cb
	}
	if c := bytes.Compare(a.Hotkey[:], b.Hotkey[:]); c != 0 {
		return c < 0
	}
	return bytes.Compare(a.ModelHash, b.ModelHash) < 0
}
