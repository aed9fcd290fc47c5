package p2p

import (
	"context"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// TestChangingSetIgnoresUnknownValidators: a node whose validator set
// follows the chain ignores the blocks of a hotkey the set does not hold
// and does not hold them against the forwarder (it may have read a newer
// set), where a fixed set rejects them and bans at the third; once the
// set holds the hotkey, its blocks are stored.
func TestChangingSetIgnoresUnknownValidators(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	set := NewChangingSet()
	n := startFresh(t, func(c *Config) { c.Validators = set })
	h, _ := stallingHost(t)
	topic := hostileTopic(t, ctx, h, n)
	publish := func(uri string, height uint64) {
		k, _ := keys.FromURI(uri)
		s := testChain(t, k, int(height)+1, 2, 0)
		b, objs := blockAndObjects(t, s, k.Public(), height)
		msg, err := wire.EncodeBlockMessage(b.Raw, objs)
		if err != nil {
			t.Fatal(err)
		}
		if err := topic.Publish(ctx, msg); err != nil {
			t.Fatal(err)
		}
	}
	for _, uri := range []string{"//Alice", "//Bob", "//Charlie", "//Dave"} {
		publish(uri, 0)
	}
	for n.Stats().Ignored < 4 {
		if ctx.Err() != nil {
			t.Fatalf("the blocks were never validated: %+v", n.Stats())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n.Banned(h.ID()) {
		t.Fatal("the forwarder of blocks of validators the set does not hold yet was banned")
	}
	alice, _ := keys.FromURI("//Alice")
	if _, err := n.store.Head(alice.Public()); err == nil {
		t.Fatal("a block of a validator outside the set was stored")
	}
	set.Set(alice.Public())
	publish("//Alice", 0) // built again: another message, which gossip has not seen
	for {
		if _, err := n.store.Head(alice.Public()); err == nil {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("the block of a validator now in the set was not stored: %+v", n.Stats())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
