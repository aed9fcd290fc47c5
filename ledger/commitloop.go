package ledger

import (
	"fmt"
	"runtime"
	"time"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/record"
)

// syncing is an applied block on its way to acknowledge, which does what
// need not delay the next block: it records the block's challenges in the
// tail, releases their reservations and builds the receipts.
type syncing struct {
	f      *inflight
	taken  []*appendReq
	leaves []leafRecord
	ref    record.BlockRef
	cp     record.Checkpoint
}

func (a *Appender) run() {
	acked := make(chan struct{})
	go a.acknowledge(acked)
	defer func() {
		close(a.synced)
		<-acked
		close(a.done)
	}()
	var carry *appendReq
	for {
		first, carried := carry, carry != nil
		carry = nil
		if first == nil {
			var ok bool
			if first, ok = <-a.queue; !ok {
				return
			}
		}
		group := []*appendReq{first}
		var linked cidSet // the group's CIDs, once a decision is involved
		n, d, size := len(first.leaves), len(first.decisions), first.size
		var timeout <-chan time.Time
		var timer *time.Timer
		// A carried request did not fit the block before it, which was
		// built at once: a request was waiting, others may be, and those
		// are taken without waiting again.
		if a.maxWait > 0 && !carried {
			timer = time.NewTimer(a.maxWait)
			timeout = timer.C
		}
	gather:
		for n < a.maxBatch {
			var r *appendReq
			var ok bool
			if timeout == nil {
				select {
				case r, ok = <-a.queue:
				default:
					break gather
				}
			} else {
				select {
				case r, ok = <-a.queue:
				case <-timeout:
					break gather
				}
			}
			if !ok {
				break
			}
			if n+len(r.leaves) > a.maxBatch || d+len(r.decisions) > record.MaxDecisionsPerBlock || size+r.size > record.MaxBlockObjectBytes {
				carry = r
				break
			}
			// A block links a CID once: a request whose decision the group
			// already links (two duels' shared record) waits for the next.
			if d > 0 || len(r.decisions) > 0 {
				if linked == nil {
					linked = linkSet(group)
				}
				if linked.holdsAny(r) {
					carry = r
					break
				}
			}
			if linked != nil {
				linked.add(r)
			}
			group = append(group, r)
			n, d, size = n+len(r.leaves), d+len(r.decisions), size+r.size
		}
		if timer != nil {
			timer.Stop()
		}
		sy, ok := a.applyGroup(group)
		if ok && carry == nil && a.unanswered.Load() == 0 && len(a.queue) == 0 {
			// Nothing to build until this block is durable and nothing
			// before it to answer: wait for it here, which spares each
			// append made one at a time the wake-up of acknowledge.
			//
			// Yield before making the next nonce. The apply woke Pebble's
			// WAL writer onto this goroutine's P, in the slot the P runs
			// next, and an idle P steals from that slot only after a
			// back-off that the timer slack stretches to tens of
			// microseconds: in an execution trace of one writer, the
			// write and fsync started only once this goroutine blocked,
			// 76 us (median) after the wake-up, behind the nonce.
			runtime.Gosched()
			a.prepareSignature()
			a.answer(sy)
			continue
		}
		if ok {
			a.unanswered.Add(1)
			a.synced <- sy
		}
		a.prepareSignature()
	}
}

// prepareSignature makes the next block's signature nonce now, while the
// fsync runs and requests gather, rather than on the next block's path. An
// error here recurs, and is reported, in the next Sign.
func (a *Appender) prepareSignature() { _ = a.key.PrepareSignature() }

// acknowledge answers requests once their block's fsync returned.
func (a *Appender) acknowledge(done chan<- struct{}) {
	defer close(done)
	for sy := range a.synced {
		a.answer(sy)
		a.unanswered.Add(-1)
	}
}

// answer waits for sy's fsync, publishes it and answers its requests.
// Blocks are answered one at a time in the order they were applied: by
// acknowledge, or by the commit loop when acknowledge has none left.
func (a *Appender) answer(sy syncing) {
	// While the fsync runs. Before the reservations go: a challenge is
	// always reserved, in the tail or in the tables (see challengeTail).
	a.tail.add(sy.leaves, sy.f.lastSeq)
	a.unreserve(sy.leaves)
	receipts := make([]Receipt, len(sy.taken))
	leaf := sy.cp.Size - uint64(len(sy.leaves))
	for i, r := range sy.taken {
		rc := Receipt{Block: sy.ref, Checkpoint: sy.cp, FirstLeaf: leaf}
		for _, l := range r.leaves {
			rc.Transcripts = append(rc.Transcripts, l.cid)
		}
		for _, d := range r.decisions {
			rc.Decisions = append(rc.Decisions, d.cid)
		}
		leaf += uint64(len(r.leaves))
		receipts[i] = rc
	}
	err := a.s.settle(sy.f)
	for i, r := range sy.taken {
		if err != nil {
			r.reply <- appendResult{err: err}
		} else {
			r.reply <- appendResult{r: receipts[i]}
		}
	}
}

// applyGroup builds one block for the group and applies it, answering at
// once the requests it cannot take. ok is false when nothing was applied.
func (a *Appender) applyGroup(group []*appendReq) (sy syncing, ok bool) {
	s := a.s
	v := a.key.Public()
	var taken []*appendReq
	var leaves []leafRecord
	var decisions []encoded
	for _, r := range group {
		if err := r.ctx.Err(); err != nil {
			a.unreserve(r.leaves)
			r.reply <- appendResult{err: err}
			continue
		}
		taken = append(taken, r)
		leaves = append(leaves, r.leaves...)
		decisions = append(decisions, r.decisions...)
	}
	if len(taken) == 0 {
		return sy, false
	}
	// From here every taken request is either in an applied batch, whose
	// reservations acknowledge releases, or failed.
	fail := func(err error) {
		a.unreserve(leaves)
		for _, r := range taken {
			r.reply <- appendResult{err: err}
		}
	}

	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if h := s.halted[v]; h != nil {
		fail(fmt.Errorf("append: %w", h))
		return sy, false
	}
	ch := s.chainOf(v)
	h := record.Header{
		Format:      record.BlockFormat,
		Net:         s.Network(),
		Validator:   v,
		TimeMS:      s.opts.now().UnixMilli(),
		Transcripts: make([]codec.Link, len(leaves)),
		Decisions:   make([]codec.Link, len(decisions)),
	}
	if !ch.empty {
		h.Height = ch.head.Height + 1
		h.Prev = codec.LinkTo(ch.ref.CID)
		h.TimeMS = max(h.TimeMS, ch.head.TimeMS)
		h.Anchor = ch.head.Anchor
	}
	for _, r := range taken {
		if r.anchor.Number >= h.Anchor.Number {
			h.Anchor = r.anchor
		}
	}
	for i, l := range leaves {
		h.Transcripts[i] = codec.LinkTo(l.cid)
	}
	for i, d := range decisions {
		h.Decisions[i] = codec.LinkTo(d.cid)
	}
	tree, nodes := extend(ch.tree, leaves)
	h.Checkpoint = tree.Checkpoint()
	blk, raw, c, err := record.Sign(h, a.key)
	if err != nil {
		fail(err)
		return sy, false
	}
	st := &staged{blk: blk, block: encoded{raw, c}, leaves: leaves, decisions: decisions, tree: tree, nodes: nodes}
	f, err := s.apply(ch, st)
	if err != nil {
		fail(err)
		return sy, false
	}
	ref := record.BlockRef{Validator: v, Height: blk.Height, CID: c}
	return syncing{f: f, taken: taken, leaves: leaves, ref: ref, cp: h.Checkpoint}, true
}
