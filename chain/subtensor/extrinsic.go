package subtensor

import (
	"fmt"
	"math/bits"

	"golang.org/x/crypto/blake2b"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/chain/scale"
	"github.com/affine-ledger/ledger/keys"
)

// Era is a transaction's mortality: valid for Period blocks from the block
// it was signed at. Period 0 is immortal.
type Era struct {
	Period uint64
	// Current is the block number the era starts at.
	Current uint64
}

// Encode writes Substrate's era encoding: 0x00 for immortal; otherwise two
// bytes, little-endian, holding log2(period)-1 (clamped to 1..15) in the
// low 4 bits and phase/quantize_factor above them, where the period is
// rounded up to a power of two in [4, 65536], phase = current % period and
// quantize_factor = max(period >> 12, 1).
func (e Era) Encode(enc *scale.Encoder) {
	if e.Period == 0 {
		enc.U8(0)
		return
	}
	period := uint64(1) << bits.Len64(max(e.Period, 4)-1)
	period = min(period, 1<<16)
	phase := e.Current % period
	quantize := max(period>>12, 1)
	low := min(max(bits.TrailingZeros64(period)-1, 1), 15)
	enc.U16(uint16(low) | uint16(phase/quantize)<<4)
}

// SignParams are the values the signed extensions put into an extrinsic.
type SignParams struct {
	Era                Era
	Nonce              uint64
	Tip                uint64
	SpecVersion        uint32
	TransactionVersion uint32
	Genesis            chain.Hash
	// EraBlock is the hash of block Era.Current (the genesis hash for an
	// immortal era).
	EraBlock chain.Hash
}

// extension encodes one signed extension: what it adds to the extrinsic
// (extra) and what it adds only to the signed payload (additional).
type extension struct {
	extra      func(*scale.Encoder, SignParams)
	additional func(*scale.Encoder, SignParams)
}

func none(*scale.Encoder, SignParams) {}

// extensions are the signed extensions this package can fill in, by their
// metadata identifier. Substrate's standard ones carry the nonce, tip,
// era, versions and genesis; subtensor registers its own (and the drand,
// shield and sudo pallets theirs), which carry no data at all: they are
// listed so that an extrinsic for a runtime that has them is built with
// them, and Runtime.check refuses a runtime with any other extension whose
// types are not empty.
var extensions = map[string]extension{
	"CheckNonZeroSender":       {none, none},
	"CheckWeight":              {none, none},
	"CheckSpecVersion":         {none, func(e *scale.Encoder, p SignParams) { e.U32(p.SpecVersion) }},
	"CheckTxVersion":           {none, func(e *scale.Encoder, p SignParams) { e.U32(p.TransactionVersion) }},
	"CheckGenesis":             {none, func(e *scale.Encoder, p SignParams) { e.Fixed(p.Genesis[:]) }},
	"CheckMortality":           {func(e *scale.Encoder, p SignParams) { p.Era.Encode(e) }, func(e *scale.Encoder, p SignParams) { e.Fixed(p.EraBlock[:]) }},
	"CheckEra":                 {func(e *scale.Encoder, p SignParams) { p.Era.Encode(e) }, func(e *scale.Encoder, p SignParams) { e.Fixed(p.EraBlock[:]) }},
	"CheckNonce":               {func(e *scale.Encoder, p SignParams) { e.Compact(p.Nonce) }, none},
	"ChargeTransactionPayment": {func(e *scale.Encoder, p SignParams) { e.Compact(p.Tip) }, none},
	// Subtensor wraps ChargeTransactionPayment; same encoding.
	"ChargeTransactionPaymentWrapper": {func(e *scale.Encoder, p SignParams) { e.Compact(p.Tip) }, none},
	// Mode 0 (disabled) and no metadata hash: we do not sign one.
	"CheckMetadataHash": {func(e *scale.Encoder, _ SignParams) { e.U8(0) }, func(e *scale.Encoder, _ SignParams) { e.U8(0) }},
	// Subtensor's and its pallets' extensions: no data.
	"SubtensorSignedExtension":      {none, none},
	"SubtensorTransactionExtension": {none, none},
	"CommitmentsSignedExtension":    {none, none},
	"SudoTransactionExtension":      {none, none},
	"CheckShieldedTxValidity":       {none, none},
	"DrandPriority":                 {none, none},
}

// maxUnhashedPayload is the longest payload signed as is; longer ones are
// signed through their Blake2b-256 hash.
const maxUnhashedPayload = 256

// SigningPayload is what the hotkey signs: call || extra || additional,
// or its Blake2b-256 when longer than 256 bytes. names are the runtime's
// signed extensions in order.
func SigningPayload(names []string, call []byte, p SignParams) ([]byte, []byte, error) {
	exts, err := resolve(names)
	if err != nil {
		return nil, nil, err
	}
	payload, extra := signingPayload(exts, call, p)
	return payload, extra, nil
}

func resolve(names []string) ([]extension, error) {
	var exts []extension
	for _, name := range names {
		ext, ok := extensions[name]
		if !ok {
			return nil, fmt.Errorf("signed extension %q is not supported", name)
		}
		exts = append(exts, ext)
	}
	return exts, nil
}

func signingPayload(exts []extension, call []byte, p SignParams) ([]byte, []byte) {
	var extra, add scale.Encoder
	for _, ext := range exts {
		ext.extra(&extra, p)
		ext.additional(&add, p)
	}
	payload := append(append(append([]byte(nil), call...), extra.Bytes()...), add.Bytes()...)
	if len(payload) > maxUnhashedPayload {
		h := blake2b.Sum256(payload)
		payload = h[:]
	}
	return payload, extra.Bytes()
}

// Signed extrinsic constants (format version 4).
const (
	extrinsicV4Signed = 0x84 // bit 7: signed; low bits: version 4
	multiAddressID    = 0x00 // MultiAddress::Id(AccountId32)
	multiSigSr25519   = 0x01 // MultiSignature::Sr25519
)

// SignExtrinsic builds a signed version-4 extrinsic of call:
//
//	compact(len) || 0x84 || 0x00 pubkey(32) || 0x01 sig(64) || extra || call
func SignExtrinsic(k *keys.Hotkey, names []string, call []byte, p SignParams) ([]byte, error) {
	exts, err := resolve(names)
	if err != nil {
		return nil, err
	}
	return signExtrinsic(k, exts, call, p)
}

func signExtrinsic(k *keys.Hotkey, exts []extension, call []byte, p SignParams) ([]byte, error) {
	payload, extra := signingPayload(exts, call, p)
	sig, err := k.Sign(payload)
	if err != nil {
		return nil, err
	}
	pub := k.Public()
	var body scale.Encoder
	body.U8(extrinsicV4Signed)
	body.U8(multiAddressID)
	body.Fixed(pub[:])
	body.U8(multiSigSr25519)
	body.Fixed(sig[:])
	body.Fixed(extra)
	body.Fixed(call)
	var out scale.Encoder
	out.VecU8(body.Bytes())
	return out.Bytes(), nil
}
