package validator

import (
	"bytes"
	"context"
	"fmt"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/ledger/record"
)

// A miner's model identity is its commitment's Identity (spec/chain.md):
// the committed model hash, or the hash of model and revision when it gave
// none. Duel sides and transcripts record it as the model hash, so that a
// record alone tells two models apart.

// Side returns m's duel side: its hotkey and model identity.
func Side(m chain.Contender) duel.Side {
	id := m.Commitment.Identity()
	return duel.Side{Hotkey: m.Hotkey, ModelHash: id[:]}
}

// ledgerMiner is m as a transcript records it.
func ledgerMiner(m chain.Contender) record.Miner {
	id := m.Commitment.Identity()
	where := m.Commitment.Endpoint
	if m.Commitment.Chute != "" {
		where = m.Commitment.Chute
	}
	return record.Miner{
		Hotkey: m.Hotkey, UID: m.UID,
		Model: m.Commitment.Model, Revision: m.Commitment.Revision,
		ModelHash: id[:], Endpoint: where,
	}
}

// Queue reads the contender queue from the chain: registered miners'
// commitments in commitment order, copies marked (chain.Contenders).
func Queue(ctx context.Context, c chain.Reader) ([]chain.Contender, error) {
	m, err := c.Metagraph(ctx)
	if err != nil {
		return nil, fmt.Errorf("read metagraph: %w", err)
	}
	cs, err := c.Commitments(ctx)
	if err != nil {
		return nil, fmt.Errorf("read commitments: %w", err)
	}
	return chain.Contenders(m, cs), nil
}

// find returns the queue entry committed by s's hotkey with s's model
// identity: a side that re-committed another model, or left the subnet,
// is not found.
func find(q []chain.Contender, s duel.Side) (chain.Contender, bool) {
	for _, c := range q {
		if c.Hotkey == s.Hotkey && bytes.Equal(Side(c).ModelHash, s.ModelHash) {
			return c, true
		}
	}
	return chain.Contender{}, false
}

// FirstChampion is the champion when there is none: the earliest
// commitment in queue order that is not a copy.
func FirstChampion(q []chain.Contender) (chain.Contender, bool) {
	for _, c := range q {
		if c.CopyOf == nil {
			return c, true
		}
	}
	return chain.Contender{}, false
}

// isCopy reports why c may not challenge champion, "" if it may: it is a
// copy of an earlier commitment, or has the champion's hotkey or model.
func isCopy(champion, c chain.Contender) string {
	switch {
	case c.Hotkey == champion.Hotkey:
		return "it is the champion's hotkey"
	case c.CopyOf != nil:
		return fmt.Sprintf("its model was committed earlier by uid %d", *c.CopyOf)
	case bytes.Equal(Side(c).ModelHash, Side(champion).ModelHash):
		return "its model is the champion's"
	}
	return ""
}

// nextPair returns the champion and the contender to duel next, given the
// queue and the history: the champion is the history's while its model is
// still committed, else the first champion (spec/validator.md); the
// contender is the first queue entry, in commitment order, that is not a
// copy (of an earlier commitment or of the champion) and whose model has
// not been in one of this validator's duels. ok is false when there is no
// such pair.
func nextPair(q []chain.Contender, h *History) (champion, contender chain.Contender, ok bool) {
	found := false
	if h.Frontier != nil {
		champion, found = find(q, h.Frontier.Champion)
	}
	if !found {
		if champion, found = FirstChampion(q); !found {
			return champion, contender, false
		}
	}
	contender, ok = contenderFor(q, h, champion)
	return champion, contender, ok
}

// contenderFor is the first queue entry that may challenge champion and
// has not been in one of the validator's duels.
func contenderFor(q []chain.Contender, h *History, champion chain.Contender) (chain.Contender, bool) {
	for _, c := range q {
		if isCopy(champion, c) == "" && !h.Dueled(Side(c)) {
			return c, true
		}
	}
	return chain.Contender{}, false
}
