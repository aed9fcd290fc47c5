package subtensor

import (
	"encoding/binary"

	"github.com/pierrec/xxHash/xxHash64"
	"golang.org/x/crypto/blake2b"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/chain/scale"
	"github.com/affine-ledger/ledger/keys"
)

// Storage keys (spec/chain.md, "Storage keys"): twox128(pallet) ||
// twox128(item) || each map key hashed by its hasher, where twox128 is
// XXH64 with seed 0 then seed 1, each little-endian, and the hashers used
// here are Identity (the key's SCALE encoding), Twox64Concat (XXH64 seed 0,
// little-endian, then the encoding) and Blake2_128Concat (Blake2b-128,
// then the encoding).

func twox64(b []byte, seed uint64) []byte {
	return binary.LittleEndian.AppendUint64(nil, xxHash64.Checksum(b, seed))
}

// Twox128 is XXH64(seed 0) || XXH64(seed 1), little-endian.
func Twox128(b []byte) []byte { return append(twox64(b, 0), twox64(b, 1)...) }

// Twox64Concat is the Twox64Concat hasher.
func Twox64Concat(b []byte) []byte { return append(twox64(b, 0), b...) }

// Blake2128Concat is the Blake2_128Concat hasher.
func Blake2128Concat(b []byte) []byte {
	h, _ := blake2b.New(16, nil)
	h.Write(b)
	return append(h.Sum(nil), b...)
}

// Identity is the Identity hasher.
func Identity(b []byte) []byte { return b }

// StorageKey is the key of pallet.item under already hashed map keys.
func StorageKey(pallet, item string, hashed ...[]byte) []byte {
	key := append(Twox128([]byte(pallet)), Twox128([]byte(item))...)
	for _, h := range hashed {
		key = append(key, h...)
	}
	return key
}

func u16le(v uint16) []byte { return binary.LittleEndian.AppendUint16(nil, v) }

// The storage this package reads, with the hashers subtensor declares
// (pallets/subtensor/src/lib.rs and pallets/commitments/src/lib.rs at spec
// 425).
func keySubnetworkN(netuid uint16) []byte {
	return StorageKey("SubtensorModule", "SubnetworkN", u16le(netuid))
}
func keyKeysPrefix(netuid uint16) []byte {
	return StorageKey("SubtensorModule", "Keys", u16le(netuid))
}
func keyNetVec(item string, netuid uint16) []byte {
	return StorageKey("SubtensorModule", item, u16le(netuid))
}
func keyTotalHotkeyAlpha(hotkey keys.PublicKey, netuid uint16) []byte {
	return StorageKey("SubtensorModule", "TotalHotkeyAlpha", Blake2128Concat(hotkey[:]), u16le(netuid))
}
func keyRevealPeriod(netuid uint16) []byte {
	return StorageKey("SubtensorModule", "RevealPeriodEpochs", Twox64Concat(u16le(netuid)))
}
func keyWeightsPrefix(netuid uint16) []byte {
	return StorageKey("SubtensorModule", "Weights", u16le(netuid))
}
func keyCommitmentPrefix(netuid uint16) []byte {
	return StorageKey("Commitments", "CommitmentOf", u16le(netuid))
}
func keyCommitment(netuid uint16, hotkey keys.PublicKey) []byte {
	return StorageKey("Commitments", "CommitmentOf", u16le(netuid), Twox64Concat(hotkey[:]))
}
func keyMaxSpace() []byte { return StorageKey("Commitments", "MaxSpace") }

// DecodeRegistration reads a CommitmentOf value: Registration {deposit
// u64, block u32, info {fields: Vec<Data>}}.
func DecodeRegistration(b []byte) (block uint64, fields []chain.Data, err error) {
	d := scale.NewDecoder(b)
	d.U64() // deposit
	block = uint64(d.U32())
	fields = chain.DecodeFields(d)
	return block, fields, d.Finish()
}

// maxVec bounds the vectors read from storage (a subnet has at most 4096
// uids).
const maxVec = 1 << 16

func decodeU16s(b []byte) ([]uint16, error) {
	d := scale.NewDecoder(b)
	v := d.VecU16(maxVec, "Vec<u16>")
	return v, d.Finish()
}

func decodeU64s(b []byte) ([]uint64, error) {
	d := scale.NewDecoder(b)
	n := d.Len(maxVec, 8, "Vec<u64>")
	out := make([]uint64, 0, n)
	for i := 0; i < n && d.Err() == nil; i++ {
		out = append(out, d.U64())
	}
	return out, d.Finish()
}

func decodeBools(b []byte) ([]bool, error) {
	d := scale.NewDecoder(b)
	n := d.Len(maxVec, 1, "Vec<bool>")
	out := make([]bool, 0, n)
	for i := 0; i < n && d.Err() == nil; i++ {
		out = append(out, d.Bool())
	}
	return out, d.Finish()
}

// decodeWeights reads Vec<(u16, u16)>.
func decodeWeights(b []byte) (uids, values []uint16, err error) {
	d := scale.NewDecoder(b)
	n := d.Len(maxVec, 4, "Vec<(u16, u16)>")
	for i := 0; i < n && d.Err() == nil; i++ {
		uids = append(uids, d.U16())
		values = append(values, d.U16())
	}
	return uids, values, d.Finish()
}
