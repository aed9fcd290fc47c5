package verify

import (
	"fmt"

	"github.com/ipfs/go-cid"
	"github.com/transparency-dev/merkle/compact"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
)

// StoredNodes is what a source stores of a chain's Merkle tree: a store's
// ledger.NodeReader. The verifier computes each log with its own compact
// range (B8) and never reads stored nodes for that; it holds the stored
// ones to the nodes its range completes instead (B9), since proofs are
// built from them (spec/verify.md).
type StoredNodes interface {
	// Node returns the node stored at level (1 or more) and index, ok
	// false if none is.
	Node(level uint, index uint64) (h record.Hash, ok bool, err error)
	// Leaf returns the leaf table's entry at index (level 0, whose hash
	// proofs take from its CID), ok false if it has none.
	Leaf(index uint64) (ref ledger.TranscriptRef, ok bool, err error)
	// Stray describes a node key stored beyond what a log of size has
	// completed, "" if there is none.
	Stray(size uint64) (string, error)
	// Head is the chain's head block as the reader sees the store: a
	// chain that grew since the audit read its head has nodes and leaves
	// beyond the log audited.
	Head() (cid.Cid, error)
}

// completedNode is a leaf, or a node of level 1 or more that appending a
// leaf completed, held until its block passes B8.
type completedNode struct {
	id   compact.NodeID
	hash record.Hash
}

// nodeCheck holds a chain's stored nodes to the ones its recomputed log
// completes. It reports the first mismatch as the store's damage, not the
// validator's: the chain's signed blocks are what they are, and the chain
// goes on being checked.
type nodeCheck struct {
	stored  StoredNodes
	pending []completedNode
	// damaged is set once a mismatch is reported: one per chain.
	damaged bool
}

// visit is the compact range's visitor: it keeps the leaves and the nodes
// appending them completed.
func (nc *nodeCheck) visit(id compact.NodeID, hash []byte) {
	n := completedNode{id: id}
	copy(n.hash[:], hash)
	nc.pending = append(nc.pending, n)
}

// blockPassed compares the nodes the block at height (CID c) completed
// with the stored ones; it returns the failure of the first that differs.
func (nc *nodeCheck) blockPassed(v keys.PublicKey, height uint64, c cid.Cid) *Failure {
	pending := nc.pending
	nc.pending = nc.pending[:0]
	if nc.damaged {
		return nil
	}
	for _, n := range pending {
		level, index := n.id.Level, n.id.Index
		if level == 0 {
			if f := nc.leafPassed(v, index, n.hash, height, c); f != nil {
				return f
			}
			continue
		}
		got, ok, err := nc.stored.Node(level, index)
		var reason string
		switch {
		case err != nil:
			reason = fmt.Sprintf("the store's Merkle node at level %d index %d of validator %s's log cannot be read: %v", level, index, v, err)
		case !ok:
			reason = fmt.Sprintf("the store holds no Merkle node at level %d index %d of validator %s's log, which block %s at height %d completed", level, index, v, c, height)
		case got != n.hash:
			reason = fmt.Sprintf("the store's Merkle node at level %d index %d of validator %s's log does not match the log: it holds %s, the chain's transcripts up to block %s at height %d give %s", level, index, v, got, c, height, n.hash)
		default:
			continue
		}
		return nc.fail(reason)
	}
	return nil
}

// leafPassed compares the leaf table's entry at index with the leaf the
// block at height (CID c) appended: the transcript it names, and the
// place it records.
func (nc *nodeCheck) leafPassed(v keys.PublicKey, index uint64, want record.Hash, height uint64, c cid.Cid) *Failure {
	got, ok, err := nc.stored.Leaf(index)
	var reason string
	switch {
	case err != nil:
		reason = fmt.Sprintf("the store's leaf %d of validator %s's log cannot be read: %v", index, v, err)
	case !ok:
		reason = fmt.Sprintf("the store's leaf table holds no leaf %d of validator %s's log, which block %s at height %d appended", index, v, c, height)
	case record.LeafHash(got.CID) != want:
		reason = fmt.Sprintf("the store's leaf %d of validator %s's log names another transcript than the one block %s at height %d links there", index, v, c, height)
	case got.Leaf != index || got.Height != height:
		reason = fmt.Sprintf("the store's leaf %d of validator %s's log places its transcript at leaf %d of the block at height %d, but block %s at height %d appended it", index, v, got.Leaf, got.Height, c, height)
	default:
		return nil
	}
	return nc.fail(reason)
}

// chainEnded looks for nodes stored beyond the log of size the chain's
// last verified block (head) commits to, unless the chain grew since.
func (nc *nodeCheck) chainEnded(v keys.PublicKey, size uint64, head cid.Cid) *Failure {
	if nc.damaged {
		return nil
	}
	seen, err := nc.stored.Head()
	if err == nil && !seen.Equals(head) {
		return nil
	}
	var stray string
	if err == nil {
		stray, err = nc.stored.Stray(size)
	}
	switch {
	case err != nil:
		return nc.fail(fmt.Sprintf("the store's Merkle nodes of validator %s's log cannot be read: %v", v, err))
	case stray != "":
		return nc.fail(fmt.Sprintf("the store holds %s in validator %s's log, which has %d transcripts", stray, v, size))
	}
	return nil
}

func (nc *nodeCheck) fail(reason string) *Failure {
	nc.damaged = true
	return &Failure{Transcript: -1, Reason: storeDamage + reason}
}

// storeDamage starts the reason of a failure of the store's own data,
// which no signed block vouches for: not the fault of a validator, whose
// field the failure leaves empty.
const storeDamage = "store damage: "

// frontierNodes names the nodes of the compact range [0, size), which the
// store reads to give its frontier at that size: a leaf's hash comes from
// the leaf table, the others are stored nodes.
func frontierNodes(size uint64) string {
	s := ""
	for i, id := range compact.RangeNodes(0, size, nil) {
		if i > 0 {
			s += ", "
		}
		if id.Level == 0 {
			s += fmt.Sprintf("leaf %d", id.Index)
		} else {
			s += fmt.Sprintf("level %d index %d", id.Level, id.Index)
		}
	}
	if s == "" {
		return "none"
	}
	return s
}

// EndChain ends the current chain: with stored nodes (Start.Nodes), it
// looks for nodes stored beyond the log its last verified block commits
// to, and with stored indexes (Start.Indexes), for entries no transcript
// of that log has; unless the chain failed (its later nodes and entries
// were never compared).
func (vf *Verifier) EndChain() {
	ch := vf.ch
	if ch == nil || ch.failed {
		return
	}
	if ch.nodes != nil {
		if f := ch.nodes.chainEnded(ch.v, ch.tree.End(), ch.prev); f != nil {
			vf.rep.fail(*f)
		}
	}
	if ch.indexes != nil && ch.blocks > 0 {
		ch.indexes.ended, ch.indexes.head = true, ch.prev
	}
}
