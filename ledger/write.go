package ledger

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/cockroachdb/pebble/v2"
	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/internal/layout"
	"github.com/affine-ledger/ledger/ledger/record"
)

// encoded is a checked record with its canonical bytes and CID.
type encoded struct {
	raw []byte
	cid cid.Cid
}

// leafRecord is an encoded transcript with what its indexes need.
type leafRecord struct {
	encoded
	t *record.Transcript
	// challenge is the uniqueness key of the transcript in its validator's
	// log: the binary form of t.Challenge followed by the miner's hotkey.
	// A challenge is put to a miner at most once; a duel puts it to both
	// of its miners (spec/ledger.md, rule 6).
	challenge []byte
	leaf      record.Hash // LeafHash(cid), computed by the caller's goroutine
}

func newLeafRecord(t *record.Transcript, raw []byte, c cid.Cid) (leafRecord, error) {
	ch, err := t.Challenge.MarshalBinary()
	if err != nil {
		return leafRecord{}, fmt.Errorf("transcript %s: %w", codec.ShortCID(c), err)
	}
	ch = append(ch, t.Miner.Hotkey[:]...)
	return leafRecord{encoded: encoded{raw, c}, t: t, challenge: ch, leaf: record.LeafHash(c)}, nil
}

// staged is a block with everything it links, checked and ready to commit.
type staged struct {
	blk       *record.Block
	block     encoded
	leaves    []leafRecord
	decisions []encoded
	// tree is the log after the block; nodes the Merkle nodes it added.
	tree  *record.Tree
	nodes []record.Node
	// bind records the block's network as the store's, which had none.
	bind bool
}

// extend appends leaves to a clone of parent, recording the new nodes.
func extend(parent *record.Tree, leaves []leafRecord) (*record.Tree, []record.Node) {
	t := parent.Clone()
	var nodes []record.Node
	for _, l := range leaves {
		t.AppendLeaf(l.leaf, func(n record.Node) { nodes = append(nodes, n) })
	}
	return t, nodes
}

// challengeUsed reports whether v's log already holds challenge (a
// leafRecord's uniqueness key: challenge and miner). It reads
// the live database, not a view: the next block builds on every applied
// block, durable yet or not.
func (s *Store) challengeUsed(v keys.PublicKey, challenge []byte) (bool, error) {
	return hasFiltered(s.db, layout.ChallengeKey(challenge, v), false)
}

// inflight is a batch applied to the memtable whose WAL fsync may still be
// running, with the view that shows exactly the data up to it. It becomes
// visible (settle) only once its fsync returned.
type inflight struct {
	batch *pebble.Batch
	view  *view
	// lastSeq is the Pebble sequence number of the batch's last key.
	lastSeq uint64
}

// apply writes st in one batch committed with pebble.Sync, but returns as
// soon as the batch is applied, before its fsync: the caller settles it
// outside writeMu, so the next batch can be built and applied while this
// one syncs, and Pebble syncs them together. Caller holds writeMu.
func (s *Store) apply(ch *chain, st *staged) (*inflight, error) {
	v := st.blk.Validator
	size := len(st.block.raw) + 64*len(st.nodes)
	for _, l := range st.leaves {
		size += len(l.raw) + 512
	}
	for _, d := range st.decisions {
		size += len(d.raw) + 64
	}
	kvs := make([]keyValue, 0, 4+5*len(st.leaves)+len(st.decisions)+len(st.nodes))
	set := func(k, val []byte) { kvs = append(kvs, keyValue{k, val}) }
	cb := st.block.cid.Bytes()
	set(layout.ObjectKey(cb), st.block.raw)
	set(layout.BlockKey(v, st.blk.Height), cb)
	set(layout.HeadKey(v), cb)
	if st.bind {
		set(layout.NetworkKey, encodeNetwork(st.blk.Net))
	}
	first := st.blk.Checkpoint.Size - uint64(len(st.leaves))
	for i, l := range st.leaves {
		leaf := first + uint64(i)
		lc := l.cid.Bytes()
		ref := layout.Ref{Leaf: leaf, Height: st.blk.Height, CID: lc}.Append(nil)
		set(layout.ObjectKey(lc), l.raw)
		set(layout.LeafKey(v, leaf), ref)
		set(layout.ChallengeKey(l.challenge, v), ref)
		set(layout.MinerKey(l.t.Miner.Hotkey, v, leaf), ref)
		if !l.t.Duel.IsZero() {
			set(layout.DuelKey(l.t.Duel, v, leaf), ref)
		}
	}
	for _, d := range st.decisions {
		set(layout.ObjectKey(d.cid.Bytes()), d.raw)
	}
	for _, n := range st.nodes {
		// Leaf hashes (level 0) follow from the leaf table's CIDs; storing
		// them too would cost a key per transcript.
		if n.Level > 0 {
			set(layout.NodeKey(v, n.Level, n.Index), n.Hash[:])
		}
	}
	// Pebble inserts a batch into the memtable's skiplist in batch order,
	// starting each search from where the previous key went when that
	// brackets the next one. In key order a block's keys are found in far
	// fewer comparisons and cache misses than interleaved by table (the
	// chain's leaf, node and block keys are even consecutive). No key
	// occurs twice in a block's batch (Header.Check refuses duplicate
	// links), so order does not change what is written.
	slices.SortFunc(kvs, func(x, y keyValue) int { return bytes.Compare(x.k, y.k) })
	b := s.db.NewBatchWithSize(size)
	for _, kv := range kvs {
		// Batch.Set only fails on a closed or read-only batch.
		if err := b.Set(kv.k, kv.v, nil); err != nil {
			panic(fmt.Sprintf("ledger: batch set: %v", err))
		}
	}
	f, err := s.applyBatch(b)
	if err != nil {
		return nil, fmt.Errorf("ledger store: write block %d of %s: %w", st.blk.Height, v, err)
	}
	ch.head = st.blk
	ch.ref = record.BlockRef{Validator: v, Height: st.blk.Height, CID: st.block.cid}
	ch.tree = st.tree
	ch.empty = false
	s.chains[v] = ch
	if st.bind {
		net := st.blk.Net
		s.net.Store(&net)
	}
	return f, nil
}

type keyValue struct{ k, v []byte }

// applyBatch applies b without waiting for its fsync and snapshots the
// result. Caller holds writeMu, so the snapshot holds exactly the batches
// applied so far, this one last.
func (s *Store) applyBatch(b *pebble.Batch) (*inflight, error) {
	if s.broken != nil {
		b.Close()
		return nil, fmt.Errorf("refusing writes: %w", s.broken)
	}
	if err := s.db.ApplyNoSyncWait(b, pebble.Sync); err != nil {
		s.broken = fmt.Errorf("%w: %w", ErrWriteFailed, err)
		b.Close()
		return nil, s.broken
	}
	last := uint64(b.SeqNum()) + uint64(b.Count()) - 1
	return &inflight{batch: b, view: s.newView(), lastSeq: last}, nil
}

// settle waits for f's fsync and then publishes its view. Batches settle in
// the order they were applied per goroutine; publish keeps the newest view
// whatever the order across goroutines. A failed fsync leaves Pebble with
// data it could not make durable: the store then refuses all writes, and
// nothing applied after it is ever published.
func (s *Store) settle(f *inflight) error {
	if err := f.batch.SyncWait(); err != nil {
		failed := fmt.Errorf("%w: %w", ErrWriteFailed, err)
		s.syncFailed.CompareAndSwap(nil, &failed)
	}
	f.batch.Close()
	p := s.syncFailed.Load()
	if p == nil {
		s.publish(f.view)
		return nil
	}
	err := *p
	s.writeMu.Lock()
	if s.broken == nil {
		s.broken = err
	}
	s.writeMu.Unlock()
	s.release(f.view)
	s.viewMu.Lock()
	s.wakeLocked()
	s.viewMu.Unlock()
	return fmt.Errorf("ledger store: sync: %w", err)
}

// chainOf returns v's chain state, an empty one if v has no block. Caller
// holds writeMu.
func (s *Store) chainOf(v keys.PublicKey) *chain {
	if ch, ok := s.chains[v]; ok {
		return ch
	}
	return &chain{tree: record.NewTree(), empty: true}
}
