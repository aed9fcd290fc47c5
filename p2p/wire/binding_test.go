package wire

import (
	"crypto/rand"
	"errors"
	"testing"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
)

func newPeerID(t testing.TB) peer.ID {
	t.Helper()
	k, _, err := crypto.GenerateEd25519Key(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id, err := peer.IDFromPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestBindingVerifies(t *testing.T) {
	alice, err := keys.FromURI("//Alice")
	if err != nil {
		t.Fatal(err)
	}
	bob, err := keys.FromURI("//Bob")
	if err != nil {
		t.Fatal(err)
	}
	id, other := newPeerID(t), newPeerID(t)
	b, err := NewBinding(alice, id, 7)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Verify(id, 7); err != nil {
		t.Fatalf("fresh binding: %v", err)
	}
	// Round trip through the wire encoding.
	data, err := codec.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	var back Binding
	if err := codec.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if err := back.Verify(id, 7); err != nil {
		t.Fatalf("decoded binding: %v", err)
	}

	forged := *b
	forged.Validator = bob.Public() // claims Bob with Alice's signature
	badPeer := *b
	badPeer.Peer = []byte("not a peer id")
	badFormat := *b
	badFormat.Format = 2
	for _, tc := range []struct {
		name   string
		b      *Binding
		id     peer.ID
		netuid uint16
	}{
		{"another peer presents it", b, other, 7},
		{"another subnet", b, id, 8},
		{"validator swapped", &forged, id, 7},
		{"peer bytes invalid", &badPeer, id, 7},
		{"unknown format", &badFormat, id, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.b.Verify(tc.id, tc.netuid); !errors.Is(err, ErrBadBinding) {
				t.Fatalf("Verify = %v, want ErrBadBinding", err)
			}
		})
	}
}
