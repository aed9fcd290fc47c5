package ledger

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/ledger/internal/layout"
	"github.com/affine-ledger/ledger/ledger/record"
)

// A store belongs to one network (record.Network: a subnet of one public
// chain), recorded in its meta key from the first open that names it or the
// first block it takes, whichever comes first. Its blocks, and its
// appenders' blocks, are of that network only: a hotkey that validates on
// two networks signs two chains, and one store holding both would take one
// network's block as the other's equivocation (spec/store.md#network).

// WithNetwork opens the store for network n: a store that has none yet is
// bound to n (recorded at once, unless read-only), and a store of another
// network fails to open with ErrWrongNetwork. A node always names its
// network; an auditor's tools need not, and read the recorded one.
func WithNetwork(n record.Network) Option { return func(o *options) { o.network = n } }

// Network returns the store's network, zero while it has none.
func (s *Store) Network() record.Network {
	if n := s.net.Load(); n != nil {
		return *n
	}
	return record.Network{}
}

func encodeNetwork(n record.Network) []byte {
	return binary.BigEndian.AppendUint16(append([]byte(nil), n.Genesis[:]...), n.Netuid)
}

func decodeNetwork(b []byte) (record.Network, error) {
	var n record.Network
	if len(b) != 34 {
		return n, fmt.Errorf("%w: network meta value of %d bytes, want 34", ErrCorrupt, len(b))
	}
	copy(n.Genesis[:], b)
	n.Netuid = binary.BigEndian.Uint16(b[32:])
	if err := n.Check(); err != nil {
		return n, fmt.Errorf("%w: network meta value: %v", ErrCorrupt, err)
	}
	return n, nil
}

// loadNetwork reads the recorded network, checks it against the one Open
// was given and the chains' heads, and binds a store that has none to the
// one given. Called by open after loadChains.
func (s *Store) loadNetwork() error {
	v, closer, err := s.db.Get(layout.NetworkKey)
	switch {
	case errors.Is(err, pebble.ErrNotFound):
	case err != nil:
		return err
	default:
		n, err := decodeNetwork(v)
		closer.Close()
		if err != nil {
			return err
		}
		s.net.Store(&n)
	}
	want, have := s.opts.network, s.Network()
	if !want.IsZero() && !have.IsZero() && want != have {
		empty, err := s.holdsNoRecord()
		if err != nil {
			return err
		}
		if !empty || s.opts.readOnly {
			return fmt.Errorf("%w: the store is of %s, opened for %s%s", ErrWrongNetwork, have, want, wrongNetworkHint(empty))
		}
		// Bound by a mistyped genesis or netuid, say, and nothing taken
		// since: nothing of the old network is there to keep apart.
		old := have
		s.rebound, have = &old, record.Network{}
	}
	switch {
	case !want.IsZero() && have.IsZero():
		if err := want.Check(); err != nil {
			return fmt.Errorf("network to open the store for: %w", err)
		}
		if err := s.canBind(want); err != nil {
			return err
		}
		if !s.opts.readOnly {
			if err := s.writeMeta(layout.NetworkKey, encodeNetwork(want)); err != nil {
				return fmt.Errorf("record the store's network: %w", err)
			}
		}
		s.net.Store(&want)
		have = want
	}
	for v, ch := range s.chains {
		switch {
		case ch.head.Format != record.BlockFormat:
		case have.IsZero():
			return fmt.Errorf("%w: validator %s's head block is of %s, but the store records no network", ErrCorrupt, v, ch.head.Net)
		case ch.head.Net != have:
			return fmt.Errorf("%w: validator %s's head block is of %s, the store's network is %s", ErrCorrupt, v, ch.head.Net, have)
		}
	}
	return nil
}

// holdsNoRecord reports whether the store holds nothing but its meta keys
// (layout.MetaKey, layout.NetworkKey): no block, transcript, fork proof or
// index of its network.
func (s *Store) holdsNoRecord() (bool, error) {
	iter, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte{0x01}})
	if err != nil {
		return false, err
	}
	found := iter.First()
	if err := iter.Close(); err != nil {
		return false, err
	}
	return !found, nil
}

// wrongNetworkHint says what to do about a store of another network.
func wrongNetworkHint(empty bool) string {
	if empty {
		return " (it holds no record yet)"
	}
	return "; it holds that network's records, so use another store directory for this one"
}

// ReboundFrom reports the network an empty store was bound to before this
// Open bound it to the one it was given (WithNetwork): a store holding no
// record yet takes a corrected network instead of refusing to open.
func (s *Store) ReboundFrom() (record.Network, bool) {
	if s.rebound == nil {
		return record.Network{}, false
	}
	return *s.rebound, true
}

// canBind reports whether the store may become n's: not while it holds
// chains of format-1 blocks, which name no network and so may be another
// network's. Caller holds writeMu, or is open.
func (s *Store) canBind(n record.Network) error {
	for v, ch := range s.chains {
		if ch.head.Format == record.BlockFormatV1 {
			return fmt.Errorf("%w: the store holds validator %s's chain of format-1 blocks, which name no network, so it cannot be bound to %s: a node of this release needs a new store (spec/ledger.md#format-1-blocks)", ErrWrongNetwork, v, n)
		}
	}
	return nil
}

// checkNetwork refuses a peer's block that is not of the store's network,
// and reports whether storing it binds the store to its network. Caller
// holds writeMu.
func (s *Store) checkNetwork(blk *record.Block, c cid.Cid) (bind bool, err error) {
	if blk.Format == record.BlockFormatV1 {
		return false, refused(blk, c, ErrWrongNetwork, "format 1 names no network; a store takes blocks of format %d only", record.BlockFormat)
	}
	ours := s.Network()
	if ours.IsZero() {
		if err := s.canBind(blk.Net); err != nil {
			return false, err
		}
		return true, nil
	}
	if blk.Net != ours {
		return false, refused(blk, c, ErrWrongNetwork, "the block is of %s, the store of %s", blk.Net, ours)
	}
	return false, nil
}
