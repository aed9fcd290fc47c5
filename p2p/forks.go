package p2p

import (
	"errors"
	"fmt"
	"sync"

	"github.com/ipfs/go-cid"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// proofs tracks fork proofs: those the node holds (offered in its status),
// and received ones it cannot record yet because its copy of the chain does
// not reach their height (recorded after the backfill).
//
// The store records a fork proof only when Put sees the second block, so a
// received proof is recorded by putting both of its blocks: at a height the
// store has, one of them conflicts with the stored block.
type proofs struct {
	n  *Network
	mu sync.Mutex
	// seen are the proofs received or held: not fetched again.
	seen map[cid.Cid]bool
	// held are the proofs in the store, offered in the status in order.
	// A received proof is not always one of them: a validator that signed
	// three blocks X, Y, Z at a height gives proofs (X, Y) and (X, Z) to
	// a store holding X, and never (Y, Z), whoever relayed that.
	held    map[cid.Cid]bool
	order   []cid.Cid
	pending map[keys.PublicKey]map[cid.Cid]*record.ForkProof
	// npending counts the proofs in pending, at most MaxPendingForkProofs.
	npending int
	// fetching are the peers whose offered proofs are being fetched.
	fetching map[peer.ID]bool
}

func newProofs(n *Network) *proofs {
	return &proofs{n: n, seen: map[cid.Cid]bool{}, held: map[cid.Cid]bool{}, pending: map[keys.PublicKey]map[cid.Cid]*record.ForkProof{}, fetching: map[peer.ID]bool{}}
}

// load learns the proofs already stored. One of format 1, which a store
// written before block format 2 may hold, proves no equivocation: it is
// not offered, as no node takes one.
func (ps *proofs) load() error {
	for p, err := range ps.n.store.ForkProofs() {
		if err != nil {
			return fmt.Errorf("p2p: read fork proofs: %w", err)
		}
		if p.ProvesEquivocation() {
			ps.known(p.CID)
		}
	}
	return nil
}

// known marks proof c as held: the store has it.
func (ps *proofs) known(c cid.Cid) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.seen[c] = true
	if !ps.held[c] {
		ps.held[c] = true
		ps.order = append(ps.order, c)
	}
}

// see marks proof c as received, so that no peer's status makes the node
// fetch it again.
func (ps *proofs) see(c cid.Cid) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.seen[c] = true
}

// list returns up to max held proofs, oldest first.
func (ps *proofs) list(max int) []cid.Cid {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return append([]cid.Cid(nil), ps.order[:min(max, len(ps.order))]...)
}

// unknown returns the proofs of ls not seen yet.
func (ps *proofs) unknown(ls []codec.Link) []cid.Cid {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var out []cid.Cid
	for _, l := range ls {
		if !ps.seen[l.Cid] {
			out = append(out, l.Cid)
		}
	}
	return out
}

// record stores the evidence of a verified proof now if the store reaches
// its height, else keeps it until the chain is backfilled that far (and
// starts that backfill if asked).
func (ps *proofs) record(p *record.ForkProof, backfill bool) {
	n := ps.n
	_, c, err := p.Encode()
	if err != nil {
		return // a decoded proof always encodes
	}
	if h, err := n.store.Head(p.Validator); err != nil || h.Block.Height < p.Height {
		ps.mu.Lock()
		if ps.npending >= MaxPendingForkProofs {
			ps.mu.Unlock()
			n.log.Debug("p2p: fork proofs waiting for backfill at the limit; dropped one", "validator", p.Validator, "height", p.Height)
			return
		}
		if ps.pending[p.Validator] == nil {
			ps.pending[p.Validator] = map[cid.Cid]*record.ForkProof{}
		}
		if _, dup := ps.pending[p.Validator][c]; !dup {
			ps.pending[p.Validator][c] = p
			ps.npending++
		}
		ps.seen[c] = true
		ps.mu.Unlock()
		if backfill {
			n.sync.kick(p.Validator)
		}
		return
	}
	// What the store records is offered (equivocation marks it held);
	// the proof received is only seen.
	ps.see(c)
	for _, raw := range [2][]byte{p.A, p.B} {
		_, err := n.store.Put(raw, nil)
		var eq *ledger.EquivocationError
		switch {
		case errors.As(err, &eq):
			n.equivocation(eq)
		case err != nil:
			n.log.Debug("p2p: record fork proof", "validator", p.Validator, "height", p.Height, "err", err)
		}
	}
}

// waiting reports whether proofs of v wait for its chain.
func (ps *proofs) waiting(v keys.PublicKey) bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return len(ps.pending[v]) > 0
}

// retry records the proofs of v that waited for its chain (a backfill, or
// a gossiped block, brought it); those still above the stored chain wait
// for the next backfill (not starting one: a backfill that just ended
// found no peer with more).
func (ps *proofs) retry(v keys.PublicKey) {
	ps.mu.Lock()
	waiting := ps.pending[v]
	delete(ps.pending, v)
	ps.npending -= len(waiting)
	ps.mu.Unlock()
	for _, p := range waiting {
		ps.record(p, false)
	}
}

// proofsPerFetch is how many offered proofs are fetched, then checked, at
// a time: a peer's unchecked bytes stay within about one response, not the
// 1,024 proofs (538 MB) a status may list.
const proofsPerFetch = wire.ResponseBudget / record.MaxForkProofBytes

// goFetch fetches, in the background, proofs p offered in its status. It
// does nothing while a fetch from p runs: a peer repeating its status
// (with other proofs each time) would otherwise make the node start one
// more each time. What it skips, p offers again in its next status.
func (ps *proofs) goFetch(p peer.ID, want []cid.Cid) {
	ps.mu.Lock()
	if ps.fetching[p] {
		ps.mu.Unlock()
		return
	}
	ps.fetching[p] = true
	ps.mu.Unlock()
	ps.n.goDo(func() {
		defer func() {
			ps.mu.Lock()
			delete(ps.fetching, p)
			ps.mu.Unlock()
		}()
		ps.fetch(p, want)
	})
}

// fetch gets proofs a peer offered in its status and records them.
func (ps *proofs) fetch(p peer.ID, want []cid.Cid) {
	n := ps.n
	for len(want) > 0 {
		batch := want[:min(len(want), proofsPerFetch)]
		want = want[len(batch):]
		got, err := n.fetchObjects(n.ctx, p, batch, len(batch)*record.MaxForkProofBytes)
		if err != nil {
			n.failed(p, fmt.Errorf("fork proofs: %w", err))
			return
		}
		for _, c := range batch {
			proof, err := record.DecodeForkProof(got[c])
			if err == nil {
				err = n.checkProofNetwork(proof)
				if err != nil && n.setApartIfOfItsOwnChain(p, proofNetwork(proof), err) {
					return
				}
			}
			if err != nil {
				n.punish(p, fmt.Errorf("fork proof %s: %w", c, err))
				return
			}
			if !n.cfg.Validators.Contains(proof.Validator) {
				ps.see(c)
				continue
			}
			ps.record(proof, true)
		}
	}
}
