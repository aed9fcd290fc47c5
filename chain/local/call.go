package local

import (
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/chain/scale"
	"github.com/affine-ledger/ledger/keys"
)

// CallKind selects what a transaction does. The numbers are the call's
// first byte on the wire (spec/chain.md, "Calls").
type CallKind uint8

// The calls of the local chain. Their arguments are encoded as the
// arguments of subtensor's calls of the same name.
const (
	CallSetCommitment CallKind = 0
	CallSetWeights    CallKind = 1
	CallCommitWeights CallKind = 2
	CallRevealWeights CallKind = 3
)

func (k CallKind) String() string {
	switch k {
	case CallSetCommitment:
		return "set_commitment"
	case CallSetWeights:
		return "set_weights"
	case CallCommitWeights:
		return "commit_weights"
	case CallRevealWeights:
		return "reveal_weights"
	}
	return fmt.Sprintf("call(%d)", uint8(k))
}

// maxVec bounds the uid, value and salt vectors a call may carry.
const maxVec = 4096

// Call is a decoded call.
type Call struct {
	Kind   CallKind
	Netuid uint16
	// Fields of set_commitment.
	Fields []chain.Data
	// UIDs, Values and VersionKey of set_weights and reveal_weights.
	Weights chain.Weights
	// Hash of commit_weights.
	Hash chain.Hash
	// Salt of reveal_weights.
	Salt []uint16
}

// Encode returns the call's bytes: the kind, then its arguments in SCALE.
//
//	0 set_commitment  netuid u16, info {fields: Vec<Data>}
//	1 set_weights     netuid u16, dests Vec<u16>, weights Vec<u16>, version_key u64
//	2 commit_weights  netuid u16, commit_hash [u8; 32]
//	3 reveal_weights  netuid u16, uids Vec<u16>, values Vec<u16>, salt Vec<u16>, version_key u64
func (c Call) Encode() ([]byte, error) {
	var e scale.Encoder
	e.U8(uint8(c.Kind))
	e.U16(c.Netuid)
	switch c.Kind {
	case CallSetCommitment:
		fields, err := chain.EncodeFields(c.Fields)
		if err != nil {
			return nil, err
		}
		e.Fixed(fields)
	case CallSetWeights:
		e.VecU16(c.Weights.UIDs)
		e.VecU16(c.Weights.Values)
		e.U64(c.Weights.VersionKey)
	case CallCommitWeights:
		e.Fixed(c.Hash[:])
	case CallRevealWeights:
		e.VecU16(c.Weights.UIDs)
		e.VecU16(c.Weights.Values)
		e.VecU16(c.Salt)
		e.U64(c.Weights.VersionKey)
	default:
		return nil, fmt.Errorf("%w: unknown call %d", chain.ErrBadRequest, c.Kind)
	}
	return e.Bytes(), nil
}

// DecodeCall reads what Encode writes, insisting on the canonical encoding.
func DecodeCall(b []byte) (Call, error) {
	d := scale.NewDecoder(b)
	c := Call{Kind: CallKind(d.U8()), Netuid: d.U16()}
	switch c.Kind {
	case CallSetCommitment:
		c.Fields = chain.DecodeFields(d)
	case CallSetWeights:
		c.Weights.UIDs = d.VecU16(maxVec, "uids")
		c.Weights.Values = d.VecU16(maxVec, "values")
		c.Weights.VersionKey = d.U64()
	case CallCommitWeights:
		copy(c.Hash[:], d.Fixed(32))
	case CallRevealWeights:
		c.Weights.UIDs = d.VecU16(maxVec, "uids")
		c.Weights.Values = d.VecU16(maxVec, "values")
		c.Salt = d.VecU16(maxVec, "salt")
		c.Weights.VersionKey = d.U64()
	default:
		if d.Err() == nil {
			return Call{}, fmt.Errorf("%w: unknown call %d", chain.ErrBadRequest, c.Kind)
		}
	}
	if err := d.Finish(); err != nil {
		return Call{}, fmt.Errorf("%w: %s: %v", chain.ErrBadRequest, c.Kind, err)
	}
	for i, f := range c.Fields {
		if err := f.Check(); err != nil {
			return Call{}, fmt.Errorf("%w: field %d: %v", chain.ErrBadRequest, i, err)
		}
	}
	return c, nil
}

// txLabel starts every signed transaction message.
const txLabel = "ledger/chain/local/v1/tx\x00"

// Tx is a signed call. The signature covers
//
//	"ledger/chain/local/v1/tx" 0x00 || genesis hash || hotkey || LE64(nonce) || call
//
// so a transaction is valid on one chain only (the genesis hash), for one
// account (the hotkey), once (the nonce must equal the account's next
// nonce, which every accepted transaction increments).
type Tx struct {
	Hotkey    keys.PublicKey
	Nonce     uint64
	Call      []byte
	Signature keys.Signature
}

// SigningBytes is the message a transaction's signature covers.
func SigningBytes(genesis chain.Hash, hotkey keys.PublicKey, nonce uint64, call []byte) []byte {
	var e scale.Encoder
	e.Fixed([]byte(txLabel))
	e.Fixed(genesis[:])
	e.Fixed(hotkey[:])
	e.U64(nonce)
	e.Fixed(call)
	return e.Bytes()
}

// SignTx encodes and signs a call.
func SignTx(genesis chain.Hash, k *keys.Hotkey, nonce uint64, c Call) (Tx, error) {
	call, err := c.Encode()
	if err != nil {
		return Tx{}, err
	}
	sig, err := k.Sign(SigningBytes(genesis, k.Public(), nonce, call))
	if err != nil {
		return Tx{}, err
	}
	return Tx{Hotkey: k.Public(), Nonce: nonce, Call: call, Signature: sig}, nil
}

// Verify checks the signature.
func (t Tx) Verify(genesis chain.Hash) error {
	if !keys.Verify(t.Hotkey, SigningBytes(genesis, t.Hotkey, t.Nonce, t.Call), t.Signature) {
		return fmt.Errorf("%w: transaction of %s", chain.ErrBadSignature, t.Hotkey)
	}
	return nil
}

// txJSON is a transaction on the wire.
type txJSON struct {
	Hotkey    keys.PublicKey `json:"hotkey"`
	Nonce     uint64         `json:"nonce"`
	Call      string         `json:"call"`
	Signature string         `json:"signature"`
}

// MarshalJSON writes {"hotkey", "nonce", "call" (hex), "signature" (hex)}.
func (t Tx) MarshalJSON() ([]byte, error) {
	return json.Marshal(txJSON{Hotkey: t.Hotkey, Nonce: t.Nonce, Call: hex.EncodeToString(t.Call), Signature: hex.EncodeToString(t.Signature[:])})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (t *Tx) UnmarshalJSON(b []byte) error {
	var j txJSON
	if err := strictJSON(b, &j); err != nil {
		return fmt.Errorf("transaction: %w", err)
	}
	call, err := hex.DecodeString(j.Call)
	if err != nil {
		return fmt.Errorf("transaction: call: %w", err)
	}
	sig, err := hex.DecodeString(j.Signature)
	if err != nil || len(sig) != keys.SignatureSize {
		return fmt.Errorf("transaction: signature: want %d hex-encoded bytes", keys.SignatureSize)
	}
	*t = Tx{Hotkey: j.Hotkey, Nonce: j.Nonce, Call: call, Signature: keys.Signature(sig)}
	return nil
}
