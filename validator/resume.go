package validator

import (
	"fmt"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
)

// unfinished is a duel whose transcripts are in the ledger but whose
// result is not.
type unfinished struct {
	id                  record.DuelID
	start               record.Anchor
	champion, contender duel.Side
}

// findUnfinished looks for the last duel of v's log that has transcripts
// and no result (spec/validator.md, "Restarts"). Only blocks from the one
// holding the last result on can hold such transcripts. The duel's sides
// are not in its transcripts, only its ID: the sides are the two miners of
// its transcripts, in the order whose duel ID, with the duel's start, gives
// the recorded ID. The start is the anchor of the transcripts' seeds
// (format 2). The anchors of the blocks holding them are tried too, for
// format-1 transcripts, which record no seed; they are not enough alone:
// the loop appends with the start as anchor, but a block takes the newest
// anchor of its requests and never goes back, so once another writer of
// the chain (a node's epoch driver) anchors a newer chain block, no block
// of the duel carries its start.
func findUnfinished(s *ledger.Store, v keys.PublicKey, h *History) (*unfinished, error) {
	if h.Head == nil {
		return nil, nil
	}
	var from uint64
	var done record.DuelID
	if last, ok := h.Last(); ok {
		from, done = last.Block.Height, last.ID()
	}
	type seen struct {
		miners  []record.Miner
		anchors []record.Anchor
	}
	var lastID record.DuelID
	var cur *seen
	for b, err := range s.Blocks(v, from) {
		if err != nil {
			return nil, err
		}
		for _, c := range b.TranscriptCIDs() {
			t, err := s.Transcript(c)
			if err != nil {
				return nil, fmt.Errorf("height %d: %w", b.Height, err)
			}
			if t.Duel.IsZero() || t.Duel == done {
				continue
			}
			if t.Duel != lastID || cur == nil {
				lastID, cur = t.Duel, &seen{}
			}
			if !containsMiner(cur.miners, t.Miner.Hotkey) {
				cur.miners = append(cur.miners, t.Miner)
			}
			if t.Seed != nil && !containsAnchor(cur.anchors, t.Seed.Anchor) {
				cur.anchors = append(cur.anchors, t.Seed.Anchor)
			}
			if !containsAnchor(cur.anchors, b.Anchor) {
				cur.anchors = append(cur.anchors, b.Anchor)
			}
		}
	}
	if cur == nil || len(cur.miners) != 2 {
		return nil, nil
	}
	for _, a := range cur.anchors {
		for _, order := range [2][2]int{{0, 1}, {1, 0}} {
			ch, co := cur.miners[order[0]], cur.miners[order[1]]
			if (record.Duel{Champion: ch.Hotkey, Contender: co.Hotkey, Start: a}).ID() == lastID {
				return &unfinished{
					id:        lastID,
					start:     a,
					champion:  duel.Side{Hotkey: ch.Hotkey, ModelHash: duel.HexBytes(ch.ModelHash)},
					contender: duel.Side{Hotkey: co.Hotkey, ModelHash: duel.HexBytes(co.ModelHash)},
				}, nil
			}
		}
	}
	return nil, nil
}

func containsMiner(ms []record.Miner, k keys.PublicKey) bool {
	for _, m := range ms {
		if m.Hotkey == k {
			return true
		}
	}
	return false
}

func containsAnchor(as []record.Anchor, a record.Anchor) bool {
	for _, x := range as {
		if x == a {
			return true
		}
	}
	return false
}

// errAbandon marks an unfinished duel that cannot be resumed.
type errAbandon struct{ reason string }

func (e errAbandon) Error() string { return "cannot resume: " + e.reason }

// loadStored reads the answered challenges of an unfinished duel back from
// v's log: for each env of the duel, the outcome of each counter whose pair
// of transcripts is stored. Counters are found by deriving them again from
// the duel's start (they are not recorded); a stored challenge that no
// counter within reach derives, an env or version not among the loop's, or
// a challenge with one side only means the duel was not this loop's as
// configured now: errAbandon.
func loadStored(s *ledger.Store, v keys.PublicKey, u *unfinished, envs []*envRun, maxCounter uint64) (int, error) {
	type pair struct{ champion, contender *record.Transcript }
	pairs := map[challenge.ID]*pair{}
	for ref, err := range s.TranscriptsByDuel(u.id) {
		if err != nil {
			return 0, err
		}
		if ref.Validator != v {
			continue
		}
		t, err := s.Transcript(ref.CID)
		if err != nil {
			return 0, err
		}
		p := pairs[t.Challenge]
		if p == nil {
			p = &pair{}
			pairs[t.Challenge] = p
		}
		switch t.Miner.Hotkey {
		case u.champion.Hotkey:
			p.champion = t.Transcript
		case u.contender.Hotkey:
			p.contender = t.Transcript
		default:
			return 0, errAbandon{fmt.Sprintf("transcript %s of miner %s", ref.CID, t.Miner.Hotkey.Short())}
		}
	}
	byEnv := map[string]*envRun{}
	for _, e := range envs {
		byEnv[e.name] = e
	}
	left := map[*envRun]int{}
	for id, p := range pairs {
		e := byEnv[id.Env]
		if e == nil || e.version != id.Version {
			return 0, errAbandon{fmt.Sprintf("challenge %s is not of the envs played now", id)}
		}
		if p.champion == nil || p.contender == nil {
			return 0, errAbandon{fmt.Sprintf("challenge %s has one transcript", id)}
		}
		left[e]++
	}
	for _, e := range envs {
		for c := uint64(0); left[e] > 0 && c < maxCounter; c++ {
			id, err := challenge.Derive(u.start.Hash, v, e.name, e.version, c)
			if err != nil {
				return 0, err
			}
			if p := pairs[id]; p != nil {
				e.stored[c] = duel.Judge(p.champion.Reward, p.contender.Reward)
				left[e]--
			}
		}
		if left[e] > 0 {
			return 0, errAbandon{fmt.Sprintf("%d stored challenges of env %s are not derived from the duel's start with a counter below %d", left[e], e.name, maxCounter)}
		}
	}
	return len(pairs), nil
}
