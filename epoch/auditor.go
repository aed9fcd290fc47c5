package epoch

import (
	"fmt"
	"maps"
	"sync"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/vtrust"
)

// Auditor re-executes peers' blocks as they reach the store, each block
// once, and keeps the outcomes for the epoch computation. It is safe for
// concurrent use.
type Auditor struct {
	self  keys.PublicKey
	store *ledger.Store

	mu sync.Mutex
	// next is, per peer, the first height not yet audited.
	next map[keys.PublicKey]uint64
	// audited are the outcomes per audited block, with its anchor number.
	audited []audited
	// recorder, if set, writes outcomes into the auditor's own chain;
	// recorded are the outcomes (outcomeKey) it links already.
	recorder Recorder
	recorded map[string]bool

	// chains remembers how far Ledger read each chain, and the votes
	// that may stand.
	chains chainReader
}

type audited struct {
	anchor   uint64
	outcomes []vtrust.Outcome
}

// NewAuditor returns an auditor signing its outcomes as self.
func NewAuditor(self keys.PublicKey, s *ledger.Store) *Auditor {
	return &Auditor{self: self, store: s, next: map[keys.PublicKey]uint64{}}
}

// flushEvery bounds the outcomes CatchUp holds before it records them and
// counts their blocks as audited.
const flushEvery = 16 * record.MaxDecisionsPerBlock

// CatchUp audits every peer block stored since the last call and returns
// how many blocks it audited. With a recorder, a block counts as audited
// only once its outcomes are durable in the auditor's chain: after an
// error the blocks not yet recorded are audited again by the next call.
func (a *Auditor) CatchUp() (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var peers []keys.PublicKey
	for h, err := range a.store.Heads() {
		if err != nil {
			return 0, fmt.Errorf("audit: read chain heads: %w", err)
		}
		if h.Block.Validator != a.self {
			peers = append(peers, h.Block.Validator)
		}
	}
	n := 0
	var (
		pending []audited
		next    = map[keys.PublicKey]uint64{}
		fresh   []vtrust.Outcome
	)
	flush := func() error {
		if err := a.record(fresh); err != nil {
			return err
		}
		a.audited = append(a.audited, pending...)
		maps.Copy(a.next, next)
		n += len(pending)
		pending, fresh = nil, nil
		clear(next)
		return nil
	}
	for _, p := range peers {
		for b, err := range a.store.Blocks(p, a.next[p]) {
			if err != nil {
				return n, fmt.Errorf("audit: read blocks of %s from %d: %w", p, a.next[p], err)
			}
			os, err := Audit(a.self, a.store, b)
			if err != nil {
				return n, err
			}
			pending = append(pending, audited{anchor: b.Anchor.Number, outcomes: os})
			next[p] = b.Height + 1
			fresh = append(fresh, os...)
			if len(fresh) >= flushEvery {
				if err := flush(); err != nil {
					return n, err
				}
			}
		}
	}
	return n, flush()
}

// Outcomes returns a copy of every outcome kept.
func (a *Auditor) Outcomes() []vtrust.Outcome {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []vtrust.Outcome
	for _, b := range a.audited {
		out = append(out, b.outcomes...)
	}
	return out
}

// Prune drops the outcomes about blocks anchored before block number
// anchor: no later epoch reads them.
func (a *Auditor) Prune(anchor uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	kept := a.audited[:0]
	for _, b := range a.audited {
		if b.anchor >= anchor {
			kept = append(kept, b)
		}
	}
	clear(a.audited[len(kept):])
	a.audited = kept
}
