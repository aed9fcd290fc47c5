package wire

import (
	"errors"
	"fmt"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
)

// BindingFormat is the version of the binding statement.
const BindingFormat = 1

// BindingDomain prefixes the bytes a binding signature covers, so that it can
// never be replayed as a signature of a block or anything else.
const BindingDomain = "affine-ledger/p2p-binding/v1"

// ErrBadBinding is wrapped by every binding that does not verify.
var ErrBadBinding = errors.New("bad peer binding")

// BindingStatement says "the libp2p node Peer speaks for validator Validator
// on subnet NetUID". The validator's hotkey signs it (spec/p2p.md#binding).
type BindingStatement struct {
	Format uint64 `cbor:"v"`
	NetUID uint64 `cbor:"netuid"`
	// Peer is the binary peer ID (a multihash of the node's public key).
	Peer      []byte         `cbor:"peer"`
	Validator keys.PublicKey `cbor:"validator"`
}

// Binding is a signed BindingStatement.
type Binding struct {
	BindingStatement
	Signature keys.Signature `cbor:"sig"`
}

// SigningBytes returns BindingDomain || 0x00 || the canonical encoding of s.
func (s *BindingStatement) SigningBytes() ([]byte, error) {
	body, err := codec.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("binding: %w", err)
	}
	msg := make([]byte, 0, len(BindingDomain)+1+len(body))
	msg = append(msg, BindingDomain...)
	msg = append(msg, 0)
	return append(msg, body...), nil
}

// NewBinding signs the statement that id speaks for key's validator on
// netuid.
func NewBinding(key *keys.Hotkey, id peer.ID, netuid uint16) (*Binding, error) {
	st := BindingStatement{Format: BindingFormat, NetUID: uint64(netuid), Peer: []byte(id), Validator: key.Public()}
	msg, err := st.SigningBytes()
	if err != nil {
		return nil, err
	}
	sig, err := key.Sign(msg)
	if err != nil {
		return nil, fmt.Errorf("binding: sign: %w", err)
	}
	return &Binding{BindingStatement: st, Signature: sig}, nil
}

// Verify checks that b binds peer id to its validator on netuid: format,
// subnet, peer and signature.
func (b *Binding) Verify(id peer.ID, netuid uint16) error {
	if b.Format != BindingFormat {
		return fmt.Errorf("%w: format %d, this code reads %d", ErrBadBinding, b.Format, BindingFormat)
	}
	if b.NetUID != uint64(netuid) {
		return fmt.Errorf("%w: for subnet %d, this is subnet %d", ErrBadBinding, b.NetUID, netuid)
	}
	bound, err := peer.IDFromBytes(b.Peer)
	if err != nil {
		return fmt.Errorf("%w: peer ID: %v", ErrBadBinding, err)
	}
	if bound != id {
		return fmt.Errorf("%w: binds peer %s, presented by %s", ErrBadBinding, bound, id)
	}
	msg, err := b.SigningBytes()
	if err != nil {
		return err
	}
	if !keys.Verify(b.Validator, msg, b.Signature) {
		return fmt.Errorf("%w: signature does not verify under validator %s", ErrBadBinding, b.Validator)
	}
	return nil
}
