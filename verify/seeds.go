package verify

import (
	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
)

// Seeds (spec/verify.md#seeds). A transcript records its challenge ID but
// neither the anchor its seed was derived from nor the counter, so the
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

type seedKey struct {
	anchor  ledger.Hash
	env     string
	version uint16
}

// window holds the seeds of counters [next-seedTrail, hi), next being the
// lowest counter not yet matched.
type window struct {
	next, hi uint64
	used     map[uint64]bool
	seeds    map[[challenge.SeedSize]byte]uint64
	byCount  map[uint64][challenge.SeedSize]byte
}

type seedState struct {
	v       keys.PublicKey
	anchors []ledger.Hash // distinct, oldest first, at most recentAnchors
	windows map[seedKey]*window
}

func newSeedState(v keys.PublicKey) *seedState {
	return &seedState{v: v, windows: map[seedKey]*window{}}
}

// observe adds a block's anchor to the recent ones, forgetting the oldest
// (and its windows) beyond recentAnchors.
func (s *seedState) observe(a ledger.Anchor) {
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
			w = &window{used: map[uint64]bool{}, seeds: map[[challenge.SeedSize]byte]uint64{}, byCount: map[uint64][challenge.SeedSize]byte{}}
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

func (s *seedState) fill(k seedKey, w *window) {
	for ; w.hi < w.next+seedWindow; w.hi++ {
		seed := challenge.DeriveSeed(k.anchor, s.v, k.env, k.version, w.hi)
		w.seeds[seed] = w.hi
		w.byCount[w.hi] = seed
	}
}
