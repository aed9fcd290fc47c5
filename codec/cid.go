package codec

import (
	"crypto/sha256"
	"fmt"

	"github.com/ipfs/go-cid"
	"github.com/multiformats/go-multihash"
)

// Sum returns the CIDv1 (dag-cbor codec 0x71, sha2-256 multihash) of already
// encoded bytes. It does not check that data is canonical.
func Sum(data []byte) cid.Cid {
	digest := sha256.Sum256(data)
	mh, err := multihash.Encode(digest[:], multihash.SHA2_256)
	if err != nil {
		// Encode only fails for unknown codes or wrong digest lengths, both fixed here.
		panic(fmt.Sprintf("codec: multihash: %v", err))
	}
	return cid.NewCidV1(cid.DagCBOR, mh)
}

// Encode marshals v and returns its bytes and CID together, the usual need of
// anything that stores a record.
func Encode(v any) ([]byte, cid.Cid, error) {
	b, err := Marshal(v)
	if err != nil {
		return nil, cid.Undef, err
	}
	return b, Sum(b), nil
}

// sumPrefix is the binary form of Sum's CIDs up to the digest: version 1,
// dag-cbor, sha2-256, 32 bytes.
const sumPrefix = "\x01\x71\x12\x20"

// CheckCID reports whether data hashes to want under the rules of Sum: the
// codec must be dag-cbor and the multihash sha2-256. A CID of Sum's form is
// compared by its digest, without building the CID of data: an audit
// checks every object so.
func CheckCID(data []byte, want cid.Cid) error {
	if k := want.KeyString(); len(k) == len(sumPrefix)+sha256.Size && k[:len(sumPrefix)] == sumPrefix {
		digest := sha256.Sum256(data)
		if k[len(sumPrefix):] == string(digest[:]) {
			return nil
		}
	}
	if !want.Defined() {
		return fmt.Errorf("codec: undefined CID")
	}
	if want.Version() != 1 || want.Type() != cid.DagCBOR {
		return fmt.Errorf("codec: CID %s is not a CIDv1 dag-cbor address", want)
	}
	got := Sum(data)
	if !got.Equals(want) {
		return fmt.Errorf("codec: bytes hash to %s, not %s", got, want)
	}
	return nil
}

// ShortCID abbreviates c for error messages and logs: its first 8 and last
// 6 characters, enough to tell records apart and to grep for.
func ShortCID(c cid.Cid) string {
	if !c.Defined() {
		return "no CID"
	}
	s := c.String()
	if len(s) > 16 {
		return s[:8] + "..." + s[len(s)-6:]
	}
	return s
}

// CheckAddress accepts exactly the CIDs Sum makes, the ledger's rule for
// every link: v1, dag-cbor, sha2-256 with a 32-byte digest. The error
// names what differs.
func CheckAddress(c cid.Cid) error {
	if !c.Defined() {
		return fmt.Errorf("null link")
	}
	if k := c.KeyString(); len(k) == len(sumPrefix)+sha256.Size && k[:len(sumPrefix)] == sumPrefix {
		return nil
	}
	if c.Version() != 1 || c.Type() != cid.DagCBOR {
		return fmt.Errorf("%s is not a CIDv1 dag-cbor address", c)
	}
	return fmt.Errorf("%s is not a sha2-256 address", c)
}
