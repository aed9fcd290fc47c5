package local

import (
	"fmt"
	"slices"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/yuma"
)

// stateFormat is the version of the snapshot layout and meaning. Format 3
// sets last_update as subtensor does (see neuron); store.load reads 1 and
// 2 too.
const stateFormat = 3

// state is everything the local chain knows: the snapshot written to disk,
// and the pure state machine that blocks and transactions drive. It does no
// I/O and reads no clock, so tests drive it block by block. Its methods
// change it in place; the Chain calls them on a clone (clone.go).
//
// Epochs: block b belongs to epoch b / tempo. When block b with
// b % tempo == 0 (b > 0) is produced, the consensus function runs on the
// weights in effect and the epoch counter becomes b / tempo. A write is
// applied as part of the current head block.
type state struct {
	Format     int        `json:"format"`
	Genesis    Genesis    `json:"genesis"`
	Head       uint64     `json:"head"`
	HeadHash   chain.Hash `json:"head_hash"`
	Epoch      uint64     `json:"epoch"`
	EpochBlock uint64     `json:"epoch_block"`
	// EpochError is the last consensus failure, empty after a success.
	EpochError string                    `json:"epoch_error,omitempty"`
	Nonces     map[keys.PublicKey]uint64 `json:"nonces"`
	Neurons    []*neuron                 `json:"neurons"`
	// Kept is the state as of each of the last keptBoundaries epoch
	// boundaries, oldest first (chain.Chain.At).
	Kept []snapshot `json:"kept,omitempty"`
}

// neuron is one registered hotkey's state; its uid is its index.
type neuron struct {
	Hotkey    keys.PublicKey `json:"hotkey"`
	Stake     uint64         `json:"stake"`
	Validator bool           `json:"validator"`
	// RegisteredAt is the block of registration. LastUpdate is, as
	// subtensor's LastUpdate, the block of registration or, if later, of
	// the last set_weights or (with commit-reveal on) commit_weights: a
	// reveal leaves it, so a weight row counts from when it was committed.
	RegisteredAt uint64      `json:"registered_at"`
	LastUpdate   uint64      `json:"last_update"`
	Commitment   *commitment `json:"commitment,omitempty"`
	// Space is the commitment space used in epoch SpaceEpoch.
	SpaceEpoch uint64 `json:"space_epoch"`
	SpaceUsed  uint64 `json:"space_used"`
	// Weights in effect (max-normalized), nil before the first.
	Weights *weightRow     `json:"weights,omitempty"`
	Commits []weightCommit `json:"commits,omitempty"`
	// Results of the last epoch and the bond row consensus carries over.
	Results results  `json:"results"`
	Bonds   []uint16 `json:"bonds,omitempty"`
}

type commitment struct {
	Block  uint64       `json:"block"`
	Fields []chain.Data `json:"fields"`
}

type weightRow struct {
	UIDs   []uint16 `json:"uids"`
	Values []uint16 `json:"values"`
}

type weightCommit struct {
	Hash  chain.Hash `json:"hash"`
	Block uint64     `json:"block"`
	Epoch uint64     `json:"epoch"`
}

type results struct {
	ValidatorTrust uint16 `json:"validator_trust"`
	Consensus      uint16 `json:"consensus"`
	Incentive      uint16 `json:"incentive"`
	Dividends      uint16 `json:"dividends"`
}

// upgradeLastUpdate gives a format 1 or 2 state's last_update format 3's
// meaning. Those formats set it when weights were stored (set_weights or a
// reveal) and nowhere else; a uid's value becomes the latest of the stored
// one, its registration block and its pending commits' blocks. That is
// format 3's value but for a uid that revealed after its last commit: it
// keeps the reveal's block where subtensor has the commit's, an earlier
// one. The state does not record that commit's block.
func (s *state) upgradeLastUpdate() {
	for _, n := range s.Neurons {
		n.LastUpdate = max(n.LastUpdate, n.RegisteredAt)
		if k := len(n.Commits); k > 0 {
			n.LastUpdate = max(n.LastUpdate, n.Commits[k-1].Block)
		}
	}
}

func newState(g Genesis) *state {
	s := &state{Format: stateFormat, Genesis: g, HeadHash: GenesisHash(g.Seed), Nonces: map[keys.PublicKey]uint64{}}
	for _, n := range g.Neurons {
		s.Neurons = append(s.Neurons, &neuron{Hotkey: n.Hotkey, Stake: n.Stake, Validator: n.Validator})
	}
	return s
}

func (s *state) epochOf(block uint64) uint64 { return s.Genesis.Schedule().Of(block) }

func (s *state) find(hotkey keys.PublicKey) (int, *neuron) {
	for i, n := range s.Neurons {
		if n.Hotkey == hotkey {
			return i, n
		}
	}
	return -1, nil
}

// register adds a hotkey, or updates its stake and permit if it exists.
func (s *state) register(hotkey keys.PublicKey, stake uint64, validator bool) (uint16, error) {
	if uid, n := s.find(hotkey); n != nil {
		n = s.own(uid)
		n.Stake, n.Validator = stake, validator
		return uint16(uid), nil
	}
	if len(s.Neurons) >= MaxNeurons {
		return 0, fmt.Errorf("register %s: the subnet is full (%d neurons)", hotkey, MaxNeurons)
	}
	for uid, n := range s.Neurons {
		if n.Bonds != nil {
			n = s.own(uid)
			n.Bonds = append(n.Bonds, 0)
		}
	}
	s.Neurons = append(s.Neurons, &neuron{Hotkey: hotkey, Stake: stake, Validator: validator, RegisteredAt: s.Head, LastUpdate: s.Head})
	return uint16(len(s.Neurons) - 1), nil
}

// replace puts a new neuron of hotkey at uid: the old one's commitment,
// weights, commits, results and bonds go with it, and no validator keeps
// a bond to the uid.
func (s *state) replace(uid int, hotkey keys.PublicKey, stake uint64) error {
	if uid >= len(s.Neurons) {
		return fmt.Errorf("replace uid %d: the subnet has %d neurons", uid, len(s.Neurons))
	}
	if _, n := s.find(hotkey); n != nil {
		return fmt.Errorf("replace uid %d: %s is registered already", uid, hotkey)
	}
	for i, n := range s.Neurons {
		if uid < len(n.Bonds) && n.Bonds[uid] != 0 {
			// A copy: the row's array is shared with the states before.
			bonds := slices.Clone(n.Bonds)
			bonds[uid] = 0
			s.own(i).Bonds = bonds
		}
	}
	var bonds []uint16
	if s.Neurons[uid].Bonds != nil {
		bonds = make([]uint16, len(s.Neurons))
	}
	s.Neurons[uid] = &neuron{Hotkey: hotkey, Stake: stake, RegisteredAt: s.Head, LastUpdate: s.Head, Bonds: bonds}
	return nil
}

// apply runs a transaction whose signature has been verified: the nonce
// must be the account's next one; an accepted transaction uses its nonce
// even when the call then fails, as on Substrate.
func (s *state) apply(tx Tx, c Call) error {
	if want := s.Nonces[tx.Hotkey]; tx.Nonce != want {
		return fmt.Errorf("%w: %s sent nonce %d, next is %d", chain.ErrStaleNonce, tx.Hotkey, tx.Nonce, want)
	}
	s.Nonces[tx.Hotkey]++
	if c.Netuid != s.Genesis.Netuid {
		return fmt.Errorf("%w: netuid %d, this chain hosts subnet %d", chain.ErrNotRegistered, c.Netuid, s.Genesis.Netuid)
	}
	uid, n := s.find(tx.Hotkey)
	if n == nil {
		return fmt.Errorf("%w: %s", chain.ErrNotRegistered, tx.Hotkey)
	}
	n = s.own(uid)
	switch c.Kind {
	case CallSetCommitment:
		return s.setCommitment(n, c.Fields)
	case CallSetWeights:
		if s.Genesis.CommitReveal {
			return fmt.Errorf("%w (uid %d)", chain.ErrCommitRevealOn, uid)
		}
		return s.setWeights(uid, c.Weights)
	case CallCommitWeights:
		return s.commitWeights(uid, c.Hash)
	case CallRevealWeights:
		return s.revealWeights(uid, chain.Reveal{Weights: c.Weights, Salt: c.Salt})
	}
	return fmt.Errorf("%w: unknown call %d", chain.ErrBadRequest, c.Kind)
}

func (s *state) setCommitment(n *neuron, fields []chain.Data) error {
	if len(fields) > chain.MaxFields {
		return fmt.Errorf("%w: %d fields, at most %d", chain.ErrTooManyFields, len(fields), chain.MaxFields)
	}
	cost := chain.SpaceCost(fields)
	epoch := s.epochOf(s.Head)
	used := n.SpaceUsed
	if n.SpaceEpoch != epoch {
		used = 0
	}
	if used+cost > s.Genesis.MaxSpace {
		return fmt.Errorf("%w: %s used %d of %d in epoch %d, this commitment costs %d", chain.ErrSpaceLimit, n.Hotkey, used, s.Genesis.MaxSpace, epoch, cost)
	}
	n.SpaceEpoch, n.SpaceUsed = epoch, used+cost
	n.Commitment = &commitment{Block: s.Head, Fields: slices.Clone(fields)}
	return nil
}

// setWeights checks and stores a row as subtensor's do_set_weights does:
// a validator permit is needed unless the row is a single self-weight, and
// the row must name min_allowed_weights uids (check_length). A reveal
// stores its row through here, so both are checked when the row is
// revealed, not when its hash is committed.
func (s *state) setWeights(uid int, w chain.Weights) error {
	n := s.Neurons[uid]
	if err := chain.CheckWeights(w, len(s.Neurons)); err != nil {
		return fmt.Errorf("uid %d: %w", uid, err)
	}
	if v := s.Genesis.VersionKey; v != 0 && w.VersionKey < v {
		return fmt.Errorf("%w: uid %d sent %d, subnet wants %d", chain.ErrVersionKey, uid, w.VersionKey, v)
	}
	self := len(w.UIDs) == 1 && int(w.UIDs[0]) == uid
	if !n.Validator && !self {
		return fmt.Errorf("%w: uid %d", chain.ErrNoPermit, uid)
	}
	if err := chain.CheckLength(w, uint16(uid), s.Genesis.MinAllowedWeights, len(s.Neurons)); err != nil {
		return fmt.Errorf("uid %d: %w", uid, err)
	}
	n.Weights = &weightRow{UIDs: slices.Clone(w.UIDs), Values: yuma.MaxUpscale(w.Values)}
	// With commit-reveal on, the commit set it (subtensor's
	// internal_set_weights).
	if !s.Genesis.CommitReveal {
		n.LastUpdate = s.Head
	}
	return nil
}

// dropExpired removes commits whose reveal epoch has passed from the
// front of the queue and returns their hashes.
func (s *state) dropExpired(n *neuron) []chain.Hash {
	now := s.epochOf(s.Head)
	var gone []chain.Hash
	for len(n.Commits) > 0 && now > n.Commits[0].Epoch+s.Genesis.RevealPeriod {
		gone = append(gone, n.Commits[0].Hash)
		n.Commits = n.Commits[1:]
	}
	return gone
}

func (s *state) commitWeights(uid int, h chain.Hash) error {
	if !s.Genesis.CommitReveal {
		return fmt.Errorf("%w (uid %d)", chain.ErrCommitRevealOff, uid)
	}
	n := s.Neurons[uid]
	s.dropExpired(n)
	if len(n.Commits) >= maxUnrevealed {
		return fmt.Errorf("%w: uid %d has %d", chain.ErrTooManyCommits, uid, len(n.Commits))
	}
	n.Commits = append(n.Commits, weightCommit{Hash: h, Block: s.Head, Epoch: s.epochOf(s.Head)})
	n.LastUpdate = s.Head
	return nil
}

// revealWeights follows subtensor's do_reveal_weights: expired commits are
// dropped, the revealed row must hash to a pending commit whose reveal
// epoch is now, and that commit and all before it are consumed. A refused
// reveal changes nothing.
func (s *state) revealWeights(uid int, r chain.Reveal) error {
	if !s.Genesis.CommitReveal {
		return fmt.Errorf("%w (uid %d)", chain.ErrCommitRevealOff, uid)
	}
	n := s.Neurons[uid]
	pending := slices.Clone(n.Commits)
	expired := s.dropExpired(n)
	restore := func() { n.Commits = pending }
	h := chain.CommitHash(n.Hotkey, s.Genesis.Netuid, r)
	if len(n.Commits) == 0 {
		restore()
		if slices.Contains(expired, h) {
			return fmt.Errorf("%w: uid %d", chain.ErrRevealExpired, uid)
		}
		return fmt.Errorf("%w: uid %d", chain.ErrNoCommit, uid)
	}
	at := slices.IndexFunc(n.Commits, func(c weightCommit) bool { return c.Hash == h })
	if at < 0 {
		restore()
		if slices.Contains(expired, h) {
			return fmt.Errorf("%w: uid %d", chain.ErrRevealExpired, uid)
		}
		return fmt.Errorf("%w: uid %d, hash %s", chain.ErrCommitMismatch, uid, h)
	}
	c := n.Commits[at]
	if now := s.epochOf(s.Head); now != c.Epoch+s.Genesis.RevealPeriod {
		restore()
		return fmt.Errorf("%w: uid %d committed in epoch %d (block %d), reveal in epoch %d, now %d", chain.ErrRevealTooEarly, uid, c.Epoch, c.Block, c.Epoch+s.Genesis.RevealPeriod, now)
	}
	n.Commits = n.Commits[at+1:]
	if err := s.setWeights(uid, r.Weights); err != nil {
		restore()
		return err
	}
	return nil
}

// advance produces the next block and runs the epoch when one is due.
func (s *state) advance(consensus Consensus) {
	s.keepBoundary()
	s.Head++
	s.HeadHash = NextHash(s.HeadHash, s.Head)
	if s.Genesis.Schedule().IsStart(s.Head) {
		s.runEpoch(consensus)
	}
}
