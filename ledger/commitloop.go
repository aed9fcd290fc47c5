package ledger

import (
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/affine-ledger/ledger/codec"
)

// The appender is a pipeline of three goroutines, so that building a
// block, applying it and waiting for its fsync overlap:
//
//   - run gathers queued requests into a group, builds and signs its block
//     on top of the previous one built (a.next) and stages its batch;
//   - applyLoop applies the batches in order, which is chain order, under
//     the store's writeMu (Pebble's WAL write and memtable inserts);
//   - acknowledge waits for each batch's fsync, publishes it and answers
//     the block's requests.
//
// slots bounds the blocks between gathering and answering: the loop takes
// a slot before it gathers, so that requests arriving while the pipeline
// is full wait in the queue and go into one block (one signature, one
// batch) rather than many small ones.

// built is a signed block with its staged batch, on its way to be applied.
type built struct {
	st       *staged
	batch    *pebble.Batch
	taken    []*appendReq
	receipts []Receipt
}

type syncing struct {
	f        *inflight
	receipts []Receipt
	taken    []*appendReq
}

func (a *Appender) run() {
	applied := make(chan struct{})
	go a.applyLoop(applied)
	defer func() {
		close(a.built)
		<-applied
		close(a.done)
	}()
	var carry *appendReq
	for {
		a.slots <- struct{}{}
		first := carry
		carry = nil
		if first == nil {
			var ok bool
			if first, ok = <-a.queue; !ok {
				return
			}
		}
		group := []*appendReq{first}
		n, d := len(first.leaves), len(first.decisions)
		var timeout <-chan time.Time
		var timer *time.Timer
		if a.maxWait > 0 {
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
			if n+len(r.leaves) > a.maxBatch || d+len(r.decisions) > MaxDecisionsPerBlock {
				carry = r
				break
			}
			group = append(group, r)
			n, d = n+len(r.leaves), d+len(r.decisions)
		}
		if timer != nil {
			timer.Stop()
		}
		if bb, ok := a.build(group); ok {
			a.built <- bb
		} else {
			<-a.slots
		}
	}
}

// applyLoop applies built blocks in order and passes them on to
// acknowledge.
func (a *Appender) applyLoop(done chan<- struct{}) {
	acked := make(chan struct{})
	go a.acknowledge(acked)
	defer func() {
		close(a.synced)
		<-acked
		close(done)
	}()
	for bb := range a.built {
		if sy, ok := a.applyBuilt(bb); ok {
			a.synced <- sy
		} else {
			<-a.slots
		}
	}
}

// acknowledge answers requests once their block's fsync returned.
func (a *Appender) acknowledge(done chan<- struct{}) {
	defer close(done)
	for sy := range a.synced {
		err := a.s.settle(sy.f)
		for i, r := range sy.taken {
			if err != nil {
				r.reply <- appendResult{err: err}
			} else {
				r.reply <- appendResult{r: sy.receipts[i]}
			}
		}
		<-a.slots
	}
}

// build makes the group's block on top of a.next and stages its batch,
// answering at once the requests it cannot take. ok is false when there is
// nothing to apply.
func (a *Appender) build(group []*appendReq) (bb *built, ok bool) {
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
		return nil, false
	}

	ch := a.next
	h := Header{
		Format:      BlockFormat,
		Validator:   v,
		TimeMS:      a.s.opts.now().UnixMilli(),
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
	blk, raw, c, err := Sign(h, a.key)
	if err != nil {
		for _, r := range taken {
			r.reply <- appendResult{err: err}
		}
		a.unreserve(leaves)
		return nil, false
	}
	st := &staged{blk: blk, block: encoded{raw, c}, leaves: leaves, decisions: decisions, tree: tree, nodes: nodes}
	ref := BlockRef{Validator: v, Height: blk.Height, CID: c}
	a.next = &chain{head: blk, ref: ref, tree: tree}
	bb = &built{st: st, batch: a.s.stageBatch(st), taken: taken}
	leaf := h.Checkpoint.Size - uint64(len(leaves))
	for _, r := range taken {
		rc := Receipt{Block: ref, Checkpoint: h.Checkpoint, FirstLeaf: leaf}
		for _, l := range r.leaves {
			rc.Transcripts = append(rc.Transcripts, l.cid)
		}
		for _, d := range r.decisions {
			rc.Decisions = append(rc.Decisions, d.cid)
		}
		leaf += uint64(len(r.leaves))
		bb.receipts = append(bb.receipts, rc)
	}
	return bb, true
}

// applyBuilt applies a built block, failing its requests if that fails.
// If it does, the store is broken (see applyBatch) and refuses every later
// block too, so a.next running ahead of the stored chain does no harm.
func (a *Appender) applyBuilt(bb *built) (sy syncing, ok bool) {
	s := a.s
	leaves := bb.st.leaves
	// From here every request is either in an applied batch (so in the
	// log) or failed: either way its reservation can go.
	defer a.unreserve(leaves)
	s.writeMu.Lock()
	f, err := s.applyStaged(&chain{}, bb.st, bb.batch)
	s.writeMu.Unlock()
	if err != nil {
		for _, r := range bb.taken {
			r.reply <- appendResult{err: err}
		}
		return sy, false
	}
	// Before the deferred unreserve: a challenge is always reserved, in
	// the tail or in the tables (see challengeTail).
	a.tail.add(leaves, f.lastSeq)
	return syncing{f: f, taken: bb.taken, receipts: bb.receipts}, true
}
