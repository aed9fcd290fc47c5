package verify

import (
	"fmt"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
)

// Seeds: step T5 (spec/verify.md#seeds).
//
// A format-2 transcript records its seed: the anchor and counter its
// challenge was derived from. The derivation itself is a rule of the
// record (T2); T5 checks that the anchor, number and hash, is one the
// chain recorded in the transcript's block or before. That takes every
// anchor the chain recorded, kept in an AnchorSet, with the last few in
// memory since a duel draws all its challenges at one.
//
// A format-1 transcript records neither the anchor nor the counter, so the
// verifier searches: the anchors of the block holding the transcript and of
// the recentAnchors-1 distinct anchors before it in the chain, and for each
// (anchor, env, version) the counters from seedTrail below the lowest one
// not yet matched to seedWindow above it. A counter may match several
// transcripts (a duel puts each challenge to both of its miners); the trail
// keeps a matched counter findable while its pair arrives. State is bounded
// by recentAnchors * envs * (seedTrail + seedWindow) seeds per chain.
const (
	recentAnchors = 16
	seedWindow    = 64
	seedTrail     = 64
)

// checkSeed is T5 for transcript t of block b.
func (vf *Verifier) checkSeed(b *record.Block, t transcriptKeys) error {
	s := vf.ch.seeds
	if !t.seeded {
		if s.match(t.challenge) {
			vf.rep.SeedsDerived++
			return nil
		}
		vf.rep.SeedsUnverified++
		if vf.opts.StrictSeeds {
			return fmt.Errorf("seed of challenge %s is not derived from the anchor of this block or of the %d before it with a counter in the window", t.challenge, recentAnchors-1)
		}
		return nil
	}
	a := t.seedAnchor
	if a.Number > b.Anchor.Number {
		return fmt.Errorf("seed anchor %d (%s) is newer than the block's anchor %d", a.Number, a.Hash, b.Anchor.Number)
	}
	ok, err := s.recorded(a)
	if err != nil {
		return fmt.Errorf("seed anchor %d: %w", a.Number, err)
	}
	if !ok {
		return fmt.Errorf("seed anchor %d (%s) is not recorded by this chain at or before this block", a.Number, a.Hash)
	}
	vf.rep.SeedsExact++
	return nil
}

type seedKey struct {
	anchor  record.Hash
	env     string
	version uint16
}

// counterWindow holds the seeds of counters [next-seedTrail, hi), next
// being the lowest counter not yet matched.
type counterWindow struct {
	next, hi uint64
	used     map[uint64]bool
	seeds    map[[challenge.SeedSize]byte]uint64
	byCount  map[uint64][challenge.SeedSize]byte
}

type seedState struct {
	v       keys.PublicKey
	anchors []record.Hash // distinct, oldest first, at most recentAnchors
	windows map[seedKey]*counterWindow

	// Every anchor the chain recorded is in set; the last few are in
	// recent too. below looks up those of blocks before the first one
	// verified (nil if none). err is the first error of set.AddAnchor,
	// reported by the next lookup.
	set    AnchorSet
	recent []record.Anchor
	below  func(record.Anchor) (bool, error)
	err    error
}

// newSeedState starts the seed state of v's chain. cs keeps the anchors if
// it is an AnchorSet; below is Start.Anchors.
func newSeedState(v keys.PublicKey, cs ChallengeSet, below func(record.Anchor) (bool, error)) *seedState {
	set, ok := cs.(AnchorSet)
	if !ok {
		set = memAnchors{}
	}
	return &seedState{v: v, windows: map[seedKey]*counterWindow{}, set: set, below: below}
}

// recorded reports whether a block observed so far, or one below the
// first verified, records a.
func (s *seedState) recorded(a record.Anchor) (bool, error) {
	if s.err != nil {
		return false, s.err
	}
	for i := len(s.recent) - 1; i >= 0; i-- {
		if s.recent[i] == a {
			return true, nil
		}
	}
	ok, err := s.set.HasAnchor(s.v, a)
	if ok || err != nil || s.below == nil {
		return ok, err
	}
	if ok, err = s.below(a); ok {
		s.remember(a)
	}
	return ok, err
}

// remember adds a recorded anchor to the set and to the recent ones.
func (s *seedState) remember(a record.Anchor) {
	for _, r := range s.recent {
		if r == a {
			return
		}
	}
	if err := s.set.AddAnchor(s.v, a); err != nil && s.err == nil {
		s.err = err
	}
	s.recent = append(s.recent, a)
	if len(s.recent) > recentAnchors {
		s.recent = append(s.recent[:0:0], s.recent[1:]...)
	}
}

// observe takes in a block's anchor: it is recorded from now on, and it
// joins the recent ones of the format-1 search, forgetting the oldest (and
// its windows) beyond recentAnchors.
func (s *seedState) observe(a record.Anchor) {
	s.remember(a)
	for i, h := range s.anchors {
		if h == a.Hash {
			// Move to the newest position: it is in use again.
			s.anchors = append(append(s.anchors[:i:i], s.anchors[i+1:]...), h)
			return
		}
	}
	s.anchors = append(s.anchors, a.Hash)
	if len(s.anchors) > recentAnchors {
		old := s.anchors[0]
		s.anchors = append(s.anchors[:0:0], s.anchors[1:]...)
		for k := range s.windows {
			if k.anchor == old {
				delete(s.windows, k)
			}
		}
	}
}

// match reports whether id's seed is derived from a recent anchor, and if
// so marks that counter used.
func (s *seedState) match(id challenge.ID) bool {
	for i := len(s.anchors) - 1; i >= 0; i-- {
		k := seedKey{s.anchors[i], id.Env, id.Version}
		w := s.windows[k]
		if w == nil {
			w = &counterWindow{used: map[uint64]bool{}, seeds: map[[challenge.SeedSize]byte]uint64{}, byCount: map[uint64][challenge.SeedSize]byte{}}
			s.windows[k] = w
			s.fill(k, w)
		}
		c, ok := w.seeds[id.Seed]
		if !ok {
			continue
		}
		if c >= w.next {
			w.used[c] = true
			for w.used[w.next] {
				delete(w.used, w.next)
				w.next++
				if w.next > seedTrail {
					old := w.next - seedTrail - 1
					delete(w.seeds, w.byCount[old])
					delete(w.byCount, old)
				}
			}
			s.fill(k, w)
		}
		return true
	}
	return false
}

func (s *seedState) fill(k seedKey, w *counterWindow) {
	for ; w.hi < w.next+seedWindow; w.hi++ {
		seed := challenge.DeriveSeed(k.anchor, s.v, k.env, k.version, w.hi)
		w.seeds[seed] = w.hi
		w.byCount[w.hi] = seed
	}
}
