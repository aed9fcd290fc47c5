package epoch

import (
	"errors"
	"fmt"
	"sync"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/vtrust"
)

// Recorder writes outcomes into the auditor's own chain as decision
// records (spec/vtrust.md, "Outcome records") and returns once they are
// durable.
type Recorder func(outcomes []vtrust.Outcome) error

// outcomeKey names an outcome by what it judges: an auditor gives one
// verdict per (block, record).
func outcomeKey(o vtrust.Outcome) string { return o.Block.Cid.KeyString() + o.Record.Cid.KeyString() }

// Record makes the auditor write every outcome it reaches from now on
// through r, before it counts the block as audited, so that a restarted
// node neither loses nor repeats a verdict: the outcomes its own chain
// already links are read back first and not written again.
func (a *Auditor) Record(r Recorder) error {
	done := map[string]bool{}
	for b, err := range a.store.Blocks(a.self, 0) {
		if errors.Is(err, ledger.ErrNotFound) {
			break
		}
		if err != nil {
			return fmt.Errorf("audit: read own chain: %w", err)
		}
		for _, d := range b.Decisions {
			raw, err := a.store.Object(d.Cid)
			if err != nil {
				return fmt.Errorf("audit: read own decision %s at height %d: %w", d.Cid, b.Height, err)
			}
			if o, err := vtrust.DecodeOutcome(raw); err == nil {
				done[outcomeKey(o)] = true
			}
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.recorder, a.recorded = r, done
	return nil
}

// record writes the outcomes the chain does not link yet, at most
// record.MaxDecisionsPerBlock per request, the requests at once so that
// the appender commits them together.
func (a *Auditor) record(os []vtrust.Outcome) error {
	if a.recorder == nil {
		return nil
	}
	var fresh []vtrust.Outcome
	for _, o := range os {
		if !a.recorded[outcomeKey(o)] {
			fresh = append(fresh, o)
		}
	}
	var chunks [][]vtrust.Outcome
	for len(fresh) > 0 {
		n := min(len(fresh), record.MaxDecisionsPerBlock)
		chunks = append(chunks, fresh[:n])
		fresh = fresh[n:]
	}
	errs := make([]error, len(chunks))
	var wg sync.WaitGroup
	for i, c := range chunks {
		wg.Go(func() { errs[i] = a.recorder(c) })
	}
	wg.Wait()
	for i, c := range chunks {
		if errs[i] != nil {
			continue
		}
		for _, o := range c {
			a.recorded[outcomeKey(o)] = true
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("audit: record outcomes: %w", err)
	}
	return nil
}
