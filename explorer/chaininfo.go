package explorer

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
)

// chainCache reads the chain at most every ttl: the pages read the same
// metagraph and commitments many times a second, a subtensor node answers
// in tens of milliseconds at best.
type chainCache struct {
	c   chain.Chain
	ttl time.Duration

	mu   sync.Mutex
	at   time.Time
	snap *chainSnapshot
	err  error
}

// chainSnapshot is what the explorer reads of the chain.
type chainSnapshot struct {
	Head        chain.Block        `json:"head"`
	Params      chain.Params       `json:"params"`
	Metagraph   *chain.Metagraph   `json:"metagraph"`
	Commitments []chain.Commitment `json:"-"`
	Weights     []chain.WeightRow  `json:"weights"`
}

func newChainCache(c chain.Chain, ttl time.Duration) *chainCache { return &chainCache{c: c, ttl: ttl} }

func (cc *chainCache) enabled() bool { return cc.c != nil }

// get returns the cached snapshot, reading the chain again once it is
// older than ttl. A failed read is cached as long, so a chain that is
// down is not hammered.
func (cc *chainCache) get(ctx context.Context) (*chainSnapshot, error) {
	if cc.c == nil {
		return nil, errors.New("no chain")
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if !cc.at.IsZero() && time.Since(cc.at) < cc.ttl {
		return cc.snap, cc.err
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	snap, err := cc.read(ctx)
	cc.snap, cc.err, cc.at = snap, err, time.Now()
	return snap, err
}

func (cc *chainCache) read(ctx context.Context) (*chainSnapshot, error) {
	var s chainSnapshot
	var err error
	if s.Head, err = cc.c.Head(ctx); err != nil {
		return nil, err
	}
	if s.Params, err = cc.c.Params(ctx); err != nil {
		return nil, err
	}
	if s.Metagraph, err = cc.c.Metagraph(ctx); err != nil {
		return nil, err
	}
	if s.Commitments, err = cc.c.Commitments(ctx); err != nil {
		return nil, err
	}
	if s.Weights, err = cc.c.Weights(ctx); err != nil {
		return nil, err
	}
	return &s, nil
}

// CommitmentView is a validator's on-chain commitment of its ledger head
// and how it compares with the store.
type CommitmentView struct {
	// Block is the chain block of the commitment.
	Block  uint64 `json:"block"`
	Height uint64 `json:"height"`
	Size   uint64 `json:"size"`
	Root   string `json:"root"`
	// Status is "matches" (the stored block at Height has this
	// checkpoint), "mismatch" (it has another: the validator committed to
	// a log this store does not hold), "not_stored" (no block at Height
	// here yet), "none" (no ledger commitment on chain) or "error".
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

func (cc *chainCache) validatorCommitment(ctx context.Context, s *ledger.Store, v keys.PublicKey) *CommitmentView {
	snap, err := cc.get(ctx)
	if err != nil {
		return &CommitmentView{Status: "error", Error: "chain: " + err.Error()}
	}
	for _, c := range snap.Commitments {
		if c.Hotkey != v {
			continue
		}
		vc, err := chain.ParseValidatorCommitment(c.Fields)
		if err != nil {
			return &CommitmentView{Block: c.Block, Status: "none"}
		}
		out := &CommitmentView{Block: c.Block, Height: vc.Height, Size: vc.Size, Root: hexOf(vc.Root[:])}
		b, err := s.BlockAt(v, vc.Height)
		switch {
		case errors.Is(err, ledger.ErrNotFound):
			out.Status = "not_stored"
		case err != nil:
			out.Status, out.Error = "error", err.Error()
		case b.Checkpoint.Size == vc.Size && b.Checkpoint.Root == record.Hash(vc.Root):
			out.Status = "matches"
		default:
			out.Status = "mismatch"
		}
		return out
	}
	return &CommitmentView{Status: "none"}
}

// MinerCommitmentView is a miner's on-chain model commitment.
type MinerCommitmentView struct {
	Block    uint64 `json:"block"`
	Model    string `json:"model"`
	Revision string `json:"revision"`
	Chute    string `json:"chute,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
	// ModelHash is the committed hash, "" if none.
	ModelHash string `json:"model_hash"`
	// Identity is the model identity (hash) the commitment stands for.
	Identity string `json:"identity"`
	// CopyOf is the uid whose earlier commitment of the same model holds
	// the credit, if this one is a copy.
	CopyOf *uint16 `json:"copy_of,omitempty"`
	Error  string  `json:"error,omitempty"`
}

func (cc *chainCache) minerCommitment(ctx context.Context, k keys.PublicKey) *MinerCommitmentView {
	snap, err := cc.get(ctx)
	if err != nil {
		return &MinerCommitmentView{Error: "chain: " + err.Error()}
	}
	for _, c := range chain.Contenders(snap.Metagraph, snap.Commitments) {
		if c.Hotkey == k {
			id := c.Commitment.Identity()
			mc := c.Commitment
			return &MinerCommitmentView{Block: c.Block, Model: mc.Model, Revision: mc.Revision, Chute: mc.Chute, Endpoint: mc.Endpoint,
				ModelHash: hexOf(mc.ModelHash), Identity: hexOf(id[:]), CopyOf: c.CopyOf}
		}
	}
	return nil
}

// NeuronView is a hotkey's registration on the subnet.
type NeuronView struct {
	chain.Neuron
	// Weights is the weight row the neuron set, if any.
	Weights *chain.WeightRow `json:"weights,omitempty"`
	Error   string           `json:"error,omitempty"`
}

func (cc *chainCache) neuron(ctx context.Context, k keys.PublicKey) *NeuronView {
	snap, err := cc.get(ctx)
	if err != nil {
		return &NeuronView{Error: "chain: " + err.Error()}
	}
	n, ok := snap.Metagraph.Find(k)
	if !ok {
		return nil
	}
	out := &NeuronView{Neuron: n}
	for i := range snap.Weights {
		if snap.Weights[i].UID == n.UID {
			out.Weights = &snap.Weights[i]
		}
	}
	return out
}

// ChainView is GET /api/v1/chain.
type ChainView struct {
	chainSnapshot
	// Contenders is the contender queue (chain.Contenders): miners'
	// commitments in commitment order, copies marked.
	Contenders []chain.Contender `json:"contenders"`
	// ValidatorCommitments are the ledger heads validators committed.
	ValidatorCommitments []ValidatorCommitmentRow `json:"validator_commitments"`
}

// ValidatorCommitmentRow is one validator's commitment on chain.
type ValidatorCommitmentRow struct {
	Hotkey keys.PublicKey `json:"hotkey"`
	CommitmentView
}

func (srv *server) chainInfo(w http.ResponseWriter, r *http.Request) error {
	if _, err := parseQuery(r); err != nil {
		return err
	}
	if !srv.chain.enabled() {
		return errNotFound("no chain: start the explorer with --chain to see commitments, stake and weights")
	}
	snap, err := srv.chain.get(r.Context())
	if err != nil {
		return &apiError{http.StatusBadGateway, "chain: " + err.Error()}
	}
	out := ChainView{chainSnapshot: *snap, Contenders: chain.Contenders(snap.Metagraph, snap.Commitments), ValidatorCommitments: []ValidatorCommitmentRow{}}
	if out.Contenders == nil {
		out.Contenders = []chain.Contender{}
	}
	for _, c := range snap.Commitments {
		if _, err := chain.ParseValidatorCommitment(c.Fields); err == nil {
			out.ValidatorCommitments = append(out.ValidatorCommitments,
				ValidatorCommitmentRow{Hotkey: c.Hotkey, CommitmentView: *srv.chain.validatorCommitment(r.Context(), srv.s, c.Hotkey)})
		}
	}
	return writeJSON(w, out)
}
