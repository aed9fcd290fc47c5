package codec

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ipfs/go-cid"
	"github.com/multiformats/go-multihash"
)

// ParseCID reads a CID given as text (on a command line, in a proof file)
// as a ledger address: CIDv1, dag-cbor, sha2-256, in its canonical text
// form, the one String gives ("b" and lower-case base32, no padding, the
// unused bits of the last digit zero). go-cid's Decode takes other texts
// of the same CID too (another multibase; "...6nb" for "...6na", which
// differ only in bits the decoder drops); a ledger address has one
// spelling, so that a CID compared or indexed as text is always found.
func ParseCID(s string) (cid.Cid, error) {
	if s == "" {
		return cid.Undef, errors.New("empty; give a CID (bafyrei...)")
	}
	c, err := cid.Decode(s)
	if err != nil {
		// go-cid says "invalid cid: " once per layer.
		reason := err.Error()
		for strings.HasPrefix(reason, "invalid cid: ") {
			reason = strings.TrimPrefix(reason, "invalid cid: ")
		}
		return cid.Undef, fmt.Errorf("%q is not a CID: %s", clip(s), reason)
	}
	p := c.Prefix()
	if p.Version != 1 || p.Codec != cid.DagCBOR || p.MhType != multihash.SHA2_256 || p.MhLength != 32 {
		return cid.Undef, fmt.Errorf("%s is not a ledger address (CIDv1, dag-cbor, sha2-256)", c)
	}
	if canon := c.String(); canon != s {
		return cid.Undef, fmt.Errorf("%q is not the canonical text of its CID, %s", clip(s), canon)
	}
	return c, nil
}

// clip shortens text quoted in an error: a CID is some 60 characters.
func clip(s string) string {
	const max = 80
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
