package ledger

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/internal/layout"
)

// A store signs a validator's blocks only through that validator's
// Appender. A peer's block of that chain which the appender did not make
// means that another machine signs with the hotkey, or that this store
// lost blocks the network holds. Either way, the next block this store
// signs may stand at a height the network already holds: an equivocation,
// which every node records as a fork proof against the validator. So the
// store halts the chain instead: it records the block under layout.HaltKey
// (durable with the write that found it) and signs none of the chain's
// blocks until the mark is cleared, which NewAppender does
//
//   - once the store holds that very block at its height: it was
//     backfilled, by a node run without the key (the lost-store case);
//   - or when given ResumeSigning: the operator has stopped the other
//     machine, and this store's chain is the one to go on with.
//
// spec/store.md ("Halted chains") and spec/p2p.md.

// ErrHalted: the store signs no block of the chain (HaltedError).
var ErrHalted = errors.New("signing halted")

// HaltedError names the peer's block that halted a chain.
type HaltedError struct {
	Validator keys.PublicKey
	Height    uint64
	Block     cid.Cid
}

func (e *HaltedError) Error() string {
	return fmt.Sprintf("validator %s: %v: a peer holds block %s at height %d of its chain, which this store did not make: another machine signs with this hotkey, or this store lost blocks the network holds; another block signed here could stand at a height the network holds (an equivocation)",
		e.Validator, ErrHalted, e.Block, e.Height)
}

func (e *HaltedError) Unwrap() error { return ErrHalted }

// Halted returns v's halt, nil if v's chain is not halted.
func (s *Store) Halted(v keys.PublicKey) *HaltedError {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	return s.halted[v]
}

// ResumeSigning has NewAppender clear a halt that the store does not hold
// the halting block for: the operator says the other machine signing with
// the hotkey is stopped. Appender.Resumed then reports the halt cleared.
func ResumeSigning() AppenderOption { return func(a *Appender) { a.resume = true } }

// Resumed returns the halt NewAppender cleared, nil if there was none.
func (a *Appender) Resumed() *HaltedError { return a.resumed }

// loadHalts reads the halted chains; called by open.
func (s *Store) loadHalts() error {
	s.halted = map[keys.PublicKey]*HaltedError{}
	upper := append(append([]byte(nil), layout.HaltPrefix...), 0xff)
	iter, err := prefixIter(s.db, layout.HaltPrefix, upper)
	if err != nil {
		return err
	}
	defer iter.Close()
	for iter.First(); iter.Valid(); iter.Next() {
		k := iter.Key()[len(layout.HaltPrefix):]
		height, raw, err := layout.ParseHaltValue(iter.Value())
		if len(k) != len(keys.PublicKey{}) || err != nil {
			return fmt.Errorf("%w: halt key %x: %v", ErrCorrupt, iter.Key(), err)
		}
		c, err := parseCID(raw)
		if err != nil {
			return fmt.Errorf("%w: halt key %x: block %v", ErrCorrupt, iter.Key(), err)
		}
		var v keys.PublicKey
		copy(v[:], k)
		s.halted[v] = &HaltedError{Validator: v, Height: height, Block: c}
	}
	return iter.Error()
}

// halt marks v's chain halted by its block at height (CID c), in b if b is
// not nil (the caller applies it), else in a batch of its own, returned
// applied. The first halt stands. Caller holds writeMu.
func (s *Store) halt(b *pebble.Batch, v keys.PublicKey, height uint64, c cid.Cid) (*inflight, error) {
	if s.halted[v] != nil {
		return nil, nil
	}
	own := b == nil
	if own {
		b = s.db.NewBatch()
	}
	if err := b.Set(layout.HaltKey(v), layout.HaltValue(height, c.Bytes()), nil); err != nil {
		return nil, err
	}
	s.halted[v] = &HaltedError{Validator: v, Height: height, Block: c}
	if !own {
		return nil, nil
	}
	f, err := s.applyBatch(b)
	if err != nil {
		return nil, fmt.Errorf("ledger store: halt validator %s's chain: %w", v, err)
	}
	return f, nil
}

// clearHalt lifts v's halt for appender a, if the store holds the halting
// block or a resumes signing, with a synced write; otherwise it returns
// the halt. Caller holds writeMu.
func (s *Store) clearHalt(a *Appender, v keys.PublicKey) error {
	h := s.halted[v]
	if h == nil {
		return nil
	}
	at, ok, err := get(s.db, layout.BlockKey(v, h.Height))
	if err != nil {
		return err
	}
	if !a.resume && !(ok && bytes.Equal(at, h.Block.Bytes())) {
		return h
	}
	b := s.db.NewBatch()
	defer b.Close()
	if err := b.Delete(layout.HaltKey(v), nil); err != nil {
		return err
	}
	if err := s.db.Apply(b, pebble.Sync); err != nil {
		return fmt.Errorf("%w: clear validator %s's halt: %w", ErrWriteFailed, v, err)
	}
	delete(s.halted, v)
	a.resumed = h
	return nil
}
