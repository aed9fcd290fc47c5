package validator

import (
	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
)

// ConsensusView is what the duel loop reads of the network's consensus.
// An epoch.Driver is one.
type ConsensusView interface {
	// ConsensusChampion is the winner of the last epoch computed: the
	// champion the next epoch starts from. ok is false before the first.
	ConsensusChampion() (champion duel.Side, ok bool)
	// DethronePending reports whether a dethrone of champion by
	// contender, in a duel started at chain block start, may still move
	// the consensus: its vote still stands in the next epoch, and no
	// epoch has found the stake against it that no later vote can
	// outweigh.
	DethronePending(champion, contender duel.Side, start uint64) bool
	// Crowning returns where the duel result that crowned champion, the
	// consensus champion, is recorded: the validator whose chain holds it
	// and its CID. ok is false when the consensus knows of none.
	Crowning(champion duel.Side) (validator keys.PublicKey, record cid.Cid, ok bool)
}

// Why a duel loop leaves its ledger's champion: a validator takes its
// champion from its own duel results, and after an honest split on a
// close duel its champion is not the network's. Its later votes are then
// on pairs the consensus walk never reaches, and its stake counts against
// every dethrone as if idle (spec/vtrust.md), so that enough such splits
// can stall the network. So while the consensus champion differs from the
// ledger's, the loop keeps its own only as long as its own may still
// become the consensus one: the consensus champion is one its current
// reign passed through, and the dethrone of it in the ledger is pending.
// Otherwise it duels the consensus champion, which starts a reign
// (spec/validator.md, "Following consensus").

// consensusChampion returns the consensus champion the next duel must be
// against instead of the history's, ok false when the history's stands
// (or there is no consensus to follow).
func consensusChampion(h *History, c ConsensusView) (duel.Side, bool) {
	if c == nil {
		return duel.Side{}, false
	}
	w, ok := c.ConsensusChampion()
	switch {
	case !ok || w.Hotkey == (keys.PublicKey{}):
		return duel.Side{}, false
	case h.Frontier == nil:
		return w, true // a validator's first duel: the network's champion, not the first one
	case w.Equal(h.Frontier.Champion):
		return duel.Side{}, false
	}
	reign := h.Entries
	for i := len(reign) - 1; i >= 0; i-- {
		if reign[i].NewReign {
			reign = reign[i:]
			break
		}
	}
	for _, e := range reign {
		if e.Champion.Equal(w) && e.Winner == duel.Contender.String() {
			if c.DethronePending(e.Champion, e.Contender, e.Start.Number) {
				return duel.Side{}, false
			}
			return w, true
		}
	}
	return w, true
}

// following returns the queue entry of the consensus champion when the
// next duel must be against it (consensusChampion) and it is still
// committed.
func following(q []chain.Contender, h *History, c ConsensusView) (chain.Contender, bool) {
	w, ok := consensusChampion(h, c)
	if !ok {
		return chain.Contender{}, false
	}
	return find(q, w)
}
