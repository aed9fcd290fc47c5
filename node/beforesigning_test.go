package node_test

import (
	"context"
	"errors"
	"testing"
	"time"

	ma "github.com/multiformats/go-multiaddr"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/node/nodetest"
)

// A validator's node whose BeforeSigning check fails does not start, and
// nothing is signed: the check runs before the appender exists.
func TestBeforeSigningStopsTheStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	k, err := keys.FromURI("//Alice")
	if err != nil {
		t.Fatal(err)
	}
	// A store that exists already: a failed start removes a store it
	// made itself (madeByStart), and this one is to be read after.
	existing, err := ledger.Open(node.StoreDir(dir), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	if err := existing.Close(); err != nil {
		t.Fatal(err)
	}
	refused := errors.New("refused for the test")
	called := false
	_, err = node.Start(node.Config{
		DataDir: dir, Key: k, NetUID: recordtest.Network.Netuid, Genesis: recordtest.Network.Genesis,
		Listen: []ma.Multiaddr{ma.StringCast("/ip4/127.0.0.1/tcp/0")}, StatusEvery: time.Hour, Logger: nodetest.Quiet(),
		BeforeSigning: func(_ context.Context, s *ledger.Store) error {
			called = true
			if s.Network() != recordtest.Network {
				t.Errorf("BeforeSigning got a store of %s", s.Network())
			}
			return refused
		},
	})
	if !called || !errors.Is(err, refused) {
		t.Fatalf("start: called %v, err %v", called, err)
	}
	s, err := ledger.OpenReadOnly(node.StoreDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Head(k.Public()); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("the validator's chain after a refused start: %v", err)
	}
}
