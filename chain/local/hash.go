package local

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/affine-ledger/ledger/chain"
)

// Block hashes are a hash chain from the genesis seed (spec/chain.md,
// "Block hashes"):
//
//	hash(0) = SHA-256("ledger/chain/local/v1/genesis" || 0x00 || seed)
//	hash(n) = SHA-256("ledger/chain/local/v1/block" || 0x00 || hash(n-1) || BE64(n))
//
// so anyone holding the genesis seed can recompute any block's hash, and
// two chains with different seeds never share one.
const (
	genesisLabel = "ledger/chain/local/v1/genesis\x00"
	blockLabel   = "ledger/chain/local/v1/block\x00"
)

// GenesisHash is hash(0) of a chain with this seed.
func GenesisHash(seed string) chain.Hash {
	return sha256.Sum256([]byte(genesisLabel + seed))
}

// NextHash is hash(n) given hash(n-1).
func NextHash(prev chain.Hash, n uint64) chain.Hash {
	var buf [len(blockLabel) + 32 + 8]byte
	copy(buf[:], blockLabel)
	copy(buf[len(blockLabel):], prev[:])
	binary.BigEndian.PutUint64(buf[len(blockLabel)+32:], n)
	return sha256.Sum256(buf[:])
}

// hashEvery is the spacing of the block hashes kept in memory; a lookup
// rehashes at most hashEvery-1 blocks forward from the nearest one.
const hashEvery = 256

// hashIndex answers BlockHash for every block up to the head in O(hashEvery)
// time and O(head/hashEvery) memory.
type hashIndex struct {
	marks []chain.Hash // marks[i] = hash(i*hashEvery)
}

func newHashIndex(seed string) *hashIndex {
	return &hashIndex{marks: []chain.Hash{GenesisHash(seed)}}
}

// extend records hash(n), called for every block in order.
func (x *hashIndex) extend(n uint64, h chain.Hash) {
	if n%hashEvery == 0 && n/hashEvery == uint64(len(x.marks)) {
		x.marks = append(x.marks, h)
	}
}

// rewind forgets the blocks past head, which a change that was not saved
// extended the index with.
func (x *hashIndex) rewind(head uint64) {
	x.marks = x.marks[:head/hashEvery+1]
}

// at returns hash(n); n must not exceed the last extended block.
func (x *hashIndex) at(n uint64) chain.Hash {
	i := n / hashEvery
	h := x.marks[i]
	for b := i*hashEvery + 1; b <= n; b++ {
		h = NextHash(h, b)
	}
	return h
}
