// Package local is the embedded chain: a single-node stand-in for subtensor
// that tests and devnets run in-process (New) or share between processes
// through "ledger chain serve" and its JSON-over-HTTP protocol (Server,
// Dial). spec/chain.md specifies its block hashes, transactions, protocol
// and persistence.
//
// It keeps what a subnet's validators and miners use of subtensor:
// registrations and stake (set by an operator: Register, or the genesis),
// commitments with the Commitments pallet's limits, weights with
// commit-reveal, and an epoch every tempo that runs a Consensus function
// (Yuma by default) and publishes vtrust and incentive. Every write is a
// transaction signed by the hotkey, in-process too, so both paths check
// the same signatures and nonces.
package local

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
)

func init() {
	chain.Register("local", func(ctx context.Context, s chain.Spec, o chain.OpenOptions) (chain.Chain, error) {
		if s.URL != "" {
			return Dial(ctx, s.URL)
		}
		opts := Options{Dir: o.Dir}
		if o.Genesis != "" {
			g, err := ReadGenesis(o.Genesis)
			if err != nil {
				return nil, err
			}
			opts.Genesis = &g
		}
		return New(opts)
	})
}

// Options configure New.
type Options struct {
	// Dir holds the chain's state; empty keeps it in memory only.
	Dir string
	// Genesis starts a chain in an empty Dir (DefaultGenesis if nil). A
	// Dir that holds a chain must hold one with this genesis.
	Genesis *Genesis
	// Manual turns off block production: blocks come only from Advance.
	// Tests use it to step through epochs deterministically.
	Manual bool
	// Consensus runs every tempo (DefaultConsensus if nil).
	Consensus Consensus
}

// Chain is an in-process local chain. It implements chain.Chain and is
// safe for concurrent use: one mutex orders blocks and transactions, and a
// change is saved to Dir before the call that made it returns. A change is
// made on a clone of the state that replaces it once saved (commitLocked),
// so readers never see what a failed save did not write.
type Chain struct {
	consensus Consensus
	genesis   chain.Hash

	mu     sync.Mutex
	st     *state // as saved
	hashes *hashIndex
	store  *store // nil in memory
	// failed is why the chain stopped: a save failed (it stops rather than
	// diverge from disk), or Close. Every later change fails with it.
	failed error
	// newHead is closed when the head moves or the chain stops.
	newHead chan struct{}

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

var _ chain.Chain = (*Chain)(nil)

// New starts a local chain.
func New(opts Options) (*Chain, error) {
	g := DefaultGenesis()
	if opts.Genesis != nil {
		g = *opts.Genesis
	}
	if err := g.Check(); err != nil {
		return nil, err
	}
	c := &Chain{consensus: opts.Consensus, newHead: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	if c.consensus == nil {
		c.consensus = DefaultConsensus
	}
	var st *state
	if opts.Dir != "" {
		s, err := openStore(opts.Dir)
		if err != nil {
			return nil, err
		}
		c.store = s
		if st, err = s.load(); err != nil {
			s.close()
			return nil, err
		}
		if st != nil && opts.Genesis != nil && !sameGenesis(st.Genesis, g) {
			s.close()
			return nil, fmt.Errorf("chain dir %s holds a chain with another genesis", opts.Dir)
		}
	}
	if st == nil {
		st = newState(g)
		if c.store != nil {
			if err := c.store.save(st); err != nil {
				c.store.close()
				return nil, err
			}
		}
	}
	c.st = st
	c.genesis = GenesisHash(st.Genesis.Seed)
	c.hashes = newHashIndex(st.Genesis.Seed)
	h := c.genesis
	for n := uint64(1); n <= st.Head; n++ {
		h = NextHash(h, n)
		c.hashes.extend(n, h)
	}
	if h != st.HeadHash {
		if c.store != nil {
			c.store.close()
		}
		return nil, fmt.Errorf("chain state: head hash %s at block %d does not follow from the genesis seed (want %s)", st.HeadHash, st.Head, h)
	}
	if opts.Manual {
		close(c.done)
	} else {
		go c.produce(time.Duration(st.Genesis.BlockTime))
	}
	return c, nil
}

func sameGenesis(a, b Genesis) bool {
	ja, _ := jsonBytes(a)
	jb, _ := jsonBytes(b)
	return string(ja) == string(jb)
}

func (c *Chain) produce(every time.Duration) {
	defer close(c.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			if err := c.Advance(1); err != nil {
				return
			}
		}
	}
}

// Advance produces n blocks at once, running any epoch that falls due.
func (c *Chain) Advance(n int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failed != nil {
		return c.failed
	}
	next := c.st.clone()
	for range n {
		next.advance(c.consensus)
		c.hashes.extend(next.Head, next.HeadHash)
	}
	if err := c.commitLocked(next); err != nil {
		c.hashes.rewind(c.st.Head)
		return err
	}
	close(c.newHead)
	c.newHead = make(chan struct{})
	return nil
}

// WaitFor blocks until the head reaches block n, ctx ends, or the chain
// stops.
func (c *Chain) WaitFor(ctx context.Context, n uint64) error {
	for {
		c.mu.Lock()
		head, ch, failed := c.st.Head, c.newHead, c.failed
		c.mu.Unlock()
		if head >= n {
			return nil
		}
		if failed != nil {
			return fmt.Errorf("waiting for block %d (head %d): %w", n, head, failed)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for block %d (head %d): %w", n, head, ctx.Err())
		case <-ch:
		}
	}
}

// commitLocked saves next and makes it the state. If the save fails, the
// state stays as it was, which is what the disk holds, and the chain
// stops.
func (c *Chain) commitLocked(next *state) error {
	if c.store != nil {
		if err := c.store.save(next); err != nil {
			c.stopLocked(fmt.Errorf("local chain stopped: %w", err))
			return c.failed
		}
	}
	c.st = next
	return nil
}

// stopLocked makes every later change fail with err and wakes WaitFor
// callers, which then return it. The first reason to stop is kept.
func (c *Chain) stopLocked(err error) {
	if c.failed != nil {
		return
	}
	c.failed = err
	close(c.newHead)
}

// GenesisHash is the hash of block 0, which every transaction signs.
func (c *Chain) GenesisHash() chain.Hash { return c.genesis }

// Genesis returns the chain's genesis.
func (c *Chain) Genesis() Genesis {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st.Genesis
}

// EpochError is the last epoch's consensus failure, empty after a success.
func (c *Chain) EpochError() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st.EpochError
}

// Register registers hotkey with stake and a validator permit, or updates
// them if it is registered (an operator's act: there is no registration
// transaction on the local chain). It returns the uid.
func (c *Chain) Register(hotkey keys.PublicKey, stake uint64, validator bool) (uint16, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failed != nil {
		return 0, c.failed
	}
	next := c.st.clone()
	uid, err := next.register(hotkey, stake, validator)
	if err != nil {
		return 0, err
	}
	return uid, c.commitLocked(next)
}

// Replace deregisters the neuron at uid and registers hotkey in its place
// with stake and no permit: what subtensor does when a registration finds
// the subnet full and prunes a neuron (an operator's act here, as Register
// is). The uid then names another hotkey; weights that validators set on
// it before count for nothing (Yuma masks rows older than a
// registration).
func (c *Chain) Replace(uid uint16, hotkey keys.PublicKey, stake uint64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failed != nil {
		return c.failed
	}
	next := c.st.clone()
	if err := next.replace(int(uid), hotkey, stake); err != nil {
		return err
	}
	return c.commitLocked(next)
}

// Nonce returns the next nonce of hotkey's transactions.
func (c *Chain) Nonce(hotkey keys.PublicKey) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st.Nonces[hotkey]
}

// Submit verifies and applies a signed transaction. It returns the block
// the transaction was applied in; a transaction whose signature verifies
// and whose nonce is right uses the nonce even when its call then fails.
func (c *Chain) Submit(tx Tx) (uint64, error) {
	if err := tx.Verify(c.genesis); err != nil {
		return 0, err
	}
	call, err := DecodeCall(tx.Call)
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failed != nil {
		return 0, c.failed
	}
	next := c.st.clone()
	applyErr := next.apply(tx, call)
	if errors.Is(applyErr, chain.ErrStaleNonce) {
		return 0, applyErr
	}
	if err := c.commitLocked(next); err != nil {
		return 0, err
	}
	return c.st.Head, applyErr
}

// submit signs a call with k at its next nonce and submits it, retrying
// when another writer of the same hotkey took the nonce first.
func (c *Chain) submit(k *keys.Hotkey, call Call) error {
	call.Netuid = c.Genesis().Netuid
	var err error
	for range nonceRetries {
		var tx Tx
		if tx, err = SignTx(c.genesis, k, c.Nonce(k.Public()), call); err != nil {
			return err
		}
		if _, err = c.Submit(tx); !errors.Is(err, chain.ErrStaleNonce) {
			return err
		}
	}
	return err
}

// nonceRetries bounds how often a writer re-reads its nonce after losing a
// race for it.
const nonceRetries = 3

// Close stops block production and releases the state directory. Later
// calls, concurrent ones too, return what the first returned.
func (c *Chain) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.close() })
	return c.closeErr
}

func (c *Chain) close() error {
	close(c.stop)
	<-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopLocked(errors.New("local chain closed"))
	if c.store == nil {
		return nil
	}
	err := c.store.close()
	c.store = nil
	return err
}
