package ledger_test

import (
	"crypto/sha256"
	"errors"
	"strings"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// otherNetwork is the same subnet on another chain (a test chain, say).
var otherNetwork = record.Network{Genesis: sha256.Sum256([]byte("another chain")), Netuid: recordtest.Network.Netuid}

func onNetwork(n record.Network) func(*record.Header, map[cid.Cid][]byte) {
	return func(h *record.Header, _ map[cid.Cid][]byte) { h.Net = n }
}

func asFormat1(h *record.Header, _ map[cid.Cid][]byte) {
	h.Format, h.Net = record.BlockFormatV1, record.Network{}
}

func TestStoreKeepsItsNetwork(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	if got := s.Network(); got != recordtest.Network {
		t.Fatalf("network %s, want %s", got, recordtest.Network)
	}
	appendRange(t, appender(t, s, alice(t)), alice(t).Public(), 0, 1)
	s.Close()

	for name, openAs := range map[string]func(string, ...ledger.Option) (*ledger.Store, error){"Open": ledger.Open, "OpenReadOnly": ledger.OpenReadOnly} {
		// Reopened without naming one, the store has the one it
		// recorded.
		s, err := openAs(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Network(); got != recordtest.Network {
			t.Errorf("%s: network %s, want %s", name, got, recordtest.Network)
		}
		s.Close()
		if s, err := openAs(dir, ledger.WithNetwork(otherNetwork)); !errors.Is(err, ledger.ErrWrongNetwork) || !strings.Contains(err.Error(), otherNetwork.String()) || !strings.Contains(err.Error(), "another store directory") {
			if err == nil {
				s.Close()
			}
			t.Errorf("%s for another network: %v", name, err)
		}
	}
	if s, err := ledger.Open(t.TempDir(), ledger.WithNetwork(record.Network{Netuid: 3})); err == nil || !strings.Contains(err.Error(), "genesis") {
		if err == nil {
			s.Close()
		}
		t.Errorf("a network without a genesis hash: %v", err)
	}
}

// A store bound to a network and holding nothing yet (a node started with
// a mistyped genesis, say, and stopped before any block) takes the network
// it is next opened for, and says so; read-only, it is only described.
func TestEmptyStoreTakesACorrectedNetwork(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := ledger.Open(dir, ledger.WithNetwork(otherNetwork))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.ReboundFrom(); ok {
		t.Error("a new store reports being rebound")
	}
	s.Close()

	if s, err := ledger.OpenReadOnly(dir, ledger.WithNetwork(recordtest.Network)); !errors.Is(err, ledger.ErrWrongNetwork) || !strings.Contains(err.Error(), "holds no record yet") {
		if err == nil {
			s.Close()
		}
		t.Fatalf("read-only for another network: %v", err)
	}
	s = open(t, dir)
	if got := s.Network(); got != recordtest.Network {
		t.Fatalf("reopened for %s: network %s", recordtest.Network, got)
	}
	if from, ok := s.ReboundFrom(); !ok || from != otherNetwork {
		t.Fatalf("ReboundFrom %s %v, want %s", from, ok, otherNetwork)
	}
	appendRange(t, appender(t, s, alice(t)), alice(t).Public(), 0, 1)
	s.Close()

	// Recorded: reopened without a network, it is the new one's, and it
	// holds a record now, so it keeps it.
	s, err = ledger.OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Network(); got != recordtest.Network {
		t.Errorf("reopened: network %s, want %s", got, recordtest.Network)
	}
	s.Close()
	if s, err := ledger.Open(dir, ledger.WithNetwork(otherNetwork)); !errors.Is(err, ledger.ErrWrongNetwork) {
		if err == nil {
			s.Close()
		}
		t.Fatalf("a store with a record, for another network: %v", err)
	}
}

// A hotkey validating on two networks signs a block at each height on each.
// The other network's block is refused as such: never stored, never taken
// for equivocation, whether the chain has that height or not.
func TestPutRefusesAnotherNetworksBlocks(t *testing.T) {
	t.Parallel()
	here := &peerChain{t: t, key: alice(t)}
	there := &peerChain{t: t, key: alice(t)}
	s := open(t, t.TempDir())
	defer s.Close()
	v := here.key.Public()

	foreign0 := there.build(1, onNetwork(otherNetwork))
	if _, err := s.Put(foreign0.raw, foreign0.objs); !errors.Is(err, ledger.ErrInvalidBlock) || !errors.Is(err, ledger.ErrWrongNetwork) {
		t.Fatalf("another network's block at a new height: %v", err)
	}
	if _, err := s.Head(v); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("after a refused block, head: %v", err)
	}

	b0 := here.build(1, nil)
	if _, err := s.Put(b0.raw, b0.objs); err != nil {
		t.Fatal(err)
	}
	here.accept(b0)
	if _, err := s.Put(foreign0.raw, foreign0.objs); !errors.Is(err, ledger.ErrWrongNetwork) || errors.Is(err, ledger.ErrEquivocation) {
		t.Fatalf("another network's block at a stored height: %v", err)
	}
	legacy := here.build(1, asFormat1)
	if _, err := s.Put(legacy.raw, legacy.objs); !errors.Is(err, ledger.ErrWrongNetwork) || !strings.Contains(err.Error(), "format 1 names no network") {
		t.Fatalf("a format-1 block: %v", err)
	}
	h, err := s.Head(v)
	if err != nil || h.Equivocating || h.Block.CID != b0.cid {
		t.Fatalf("head %+v (err %v), want b0 and no equivocation", h, err)
	}
	for p, err := range s.ForkProofs() {
		t.Fatalf("fork proof %v (err %v) from another network's block", p.CID, err)
	}

	// The store's own network's conflicting block is still equivocation.
	twin := (&peerChain{t: t, key: alice(t)}).build(2, nil)
	if _, err := s.Put(twin.raw, twin.objs); !errors.Is(err, ledger.ErrEquivocation) {
		t.Fatalf("a conflicting block of the store's network: %v", err)
	}
}

// A store opened without a network takes the first valid block's, and
// only a valid block binds it.
func TestFirstBlockBindsTheStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := ledger.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Network().IsZero() {
		t.Fatalf("new store without a network has %s", s.Network())
	}
	if _, err := s.NewAppender(alice(t)); !errors.Is(err, ledger.ErrNoNetwork) {
		t.Fatalf("appender of a store without a network: %v", err)
	}
	p := &peerChain{t: t, key: bob(t)}
	bad := p.build(1, func(h *record.Header, objs map[cid.Cid][]byte) {
		h.Net = otherNetwork
		h.Checkpoint.Root[0] ^= 1
	})
	if _, err := s.Put(bad.raw, bad.objs); !errors.Is(err, ledger.ErrBadCheckpoint) {
		t.Fatalf("invalid block: %v", err)
	}
	if !s.Network().IsZero() {
		t.Fatalf("an invalid block bound the store to %s", s.Network())
	}
	b0 := p.build(1, nil)
	if _, err := s.Put(b0.raw, b0.objs); err != nil {
		t.Fatal(err)
	}
	if got := s.Network(); got != recordtest.Network {
		t.Fatalf("after the first block: network %s, want %s", got, recordtest.Network)
	}
	s.Close()
	if s, err = ledger.Open(dir, ledger.WithNetwork(otherNetwork)); !errors.Is(err, ledger.ErrWrongNetwork) {
		t.Fatalf("reopened for another network: %v", err)
	}
	s = open(t, dir)
	defer s.Close()
	a := appender(t, s, alice(t))
	r := appendRange(t, a, alice(t).Public(), 0, 1)
	blk, err := s.BlockAt(alice(t).Public(), r.Block.Height)
	if err != nil || blk.Net != recordtest.Network || blk.Format != record.BlockFormat {
		t.Fatalf("appended block: format %d network %s (err %v)", blk.Format, blk.Net, err)
	}
}

// A store written before block format 2 holds chains of format-1 blocks.
// It stays readable, but cannot be bound to a network: those blocks may be
// another network's.
func TestFormat1StoreStaysReadable(t *testing.T) {
	t.Parallel()
	dir := ledgertest.UnboundStore(t)
	p := &peerChain{t: t, key: alice(t)}
	b0 := p.build(0, asFormat1)
	v := p.key.Public()
	if _, err := ledgertest.LegacyChain(dir, b0.raw); err != nil {
		t.Fatal(err)
	}
	if s, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network)); !errors.Is(err, ledger.ErrWrongNetwork) || !strings.Contains(err.Error(), "format-1 blocks") {
		if err == nil {
			s.Close()
		}
		t.Fatalf("binding a store of format-1 chains: %v", err)
	}
	r, err := ledger.OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h, err := r.Head(v)
	if err != nil || h.Block.CID != b0.cid {
		t.Fatalf("format-1 head %+v: %v", h, err)
	}
	if !r.Network().IsZero() {
		t.Fatalf("format-1 store has network %s", r.Network())
	}
}
