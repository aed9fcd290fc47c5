package validator

import (
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
)

// pendingView is a consensus view whose dethrones are pending as listed.
type pendingView struct {
	champion duel.Side
	ok       bool
	pending  map[[2]byte]bool // by the champion's and contender's first hotkey byte
}

func (p pendingView) ConsensusChampion() (duel.Side, bool) { return p.champion, p.ok }
func (p pendingView) Crowning(duel.Side) (keys.PublicKey, cid.Cid, bool) {
	return keys.PublicKey{}, cid.Undef, false
}
func (p pendingView) DethronePending(a, b duel.Side, _ uint64) bool {
	return p.pending[[2]byte{a.Hotkey[0], b.Hotkey[0]}]
}

// TestConsensusChampion: which champion the next duel is against, given
// the ledger's reigns and the consensus (spec/validator.md, "Following
// consensus").
func TestConsensusChampion(t *testing.T) {
	t.Parallel()
	side := func(b byte) duel.Side { return duel.Side{Hotkey: keys.PublicKey{b}, ModelHash: []byte{b}} }
	entry := func(champion, contender byte, winner string, reign bool) Entry {
		return Entry{Champion: side(champion), Contender: side(contender), Winner: winner, NewReign: reign}
	}
	history := func(champion byte, es ...Entry) *History {
		return &History{Entries: es, Frontier: &duel.Frontier{Champion: side(champion)}}
	}
	// The ledger: A dethroned by B, B held against C, B dethroned by D.
	ahead := history(4, entry(1, 2, "contender", true), entry(2, 3, "champion", false), entry(2, 4, "contender", false))
	for _, c := range []struct {
		name   string
		h      *History
		view   ConsensusView
		follow byte // 0: the ledger's champion stands
	}{
		{"no view", ahead, nil, 0},
		{"no epoch yet", ahead, pendingView{champion: side(1)}, 0},
		{"the same champion", ahead, pendingView{champion: side(4), ok: true}, 0},
		{"no duel yet", &History{}, pendingView{champion: side(1), ok: true}, 1},
		{"ahead, pending", ahead, pendingView{champion: side(2), ok: true, pending: map[[2]byte]bool{{2, 4}: true}}, 0},
		{"ahead, lost", ahead, pendingView{champion: side(2), ok: true, pending: map[[2]byte]bool{{1, 2}: true}}, 2},
		// Only the first dethrone of the consensus champion counts: the
		// later ones follow from it.
		{"ahead by two, first pending", ahead, pendingView{champion: side(1), ok: true, pending: map[[2]byte]bool{{1, 2}: true}}, 0},
		{"ahead by two, first lost", ahead, pendingView{champion: side(1), ok: true, pending: map[[2]byte]bool{{2, 4}: true}}, 1},
		{"a champion the ledger never had", ahead, pendingView{champion: side(9), ok: true}, 9},
		{"a champion the ledger held against", ahead, pendingView{champion: side(3), ok: true}, 3},
		// A reign that ended (its champion left) is no path to the
		// consensus champion.
		{"an earlier reign's", history(6, entry(1, 2, "contender", true), entry(5, 6, "contender", true)),
			pendingView{champion: side(1), ok: true, pending: map[[2]byte]bool{{1, 2}: true}}, 1},
	} {
		w, ok := consensusChampion(c.h, c.view)
		switch {
		case c.follow == 0 && ok:
			t.Errorf("%s: follows %x, want the ledger's champion", c.name, w.Hotkey[0])
		case c.follow != 0 && (!ok || w.Hotkey[0] != c.follow):
			t.Errorf("%s: follows %x (%v), want %x", c.name, w.Hotkey[0], ok, c.follow)
		}
	}
}
