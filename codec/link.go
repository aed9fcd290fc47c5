package codec

import (
	"encoding/json"
	"fmt"

	"github.com/fxamacker/cbor/v2"
	"github.com/ipfs/go-cid"
)

// linkTag is the CBOR tag DAG-CBOR reserves for CIDs.
const linkTag = 42

// Link is a CID inside a record. It encodes as DAG-CBOR requires: tag 42 over
// a byte string holding 0x00 followed by the binary CID. The zero Link is
// "no link" and encodes as CBOR null.
type Link struct{ cid.Cid }

// LinkTo wraps c.
func LinkTo(c cid.Cid) Link { return Link{c} }

// LinksTo wraps each of cs.
func LinksTo(cs []cid.Cid) []Link {
	out := make([]Link, len(cs))
	for i, c := range cs {
		out[i] = Link{c}
	}
	return out
}

// IsZero reports whether l holds no CID.
func (l Link) IsZero() bool { return !l.Cid.Defined() }

// MarshalCBOR implements cbor.Marshaler. It writes the bytes encMode
// writes for cbor.Tag{42, 0x00 || CID} (TestLinkMarshalMatchesTag), without
// going through the encoder: a block holds thousands of links.
func (l Link) MarshalCBOR() ([]byte, error) {
	if l.IsZero() {
		return []byte{cborNull}, nil
	}
	k := l.Cid.KeyString()
	b := make([]byte, 0, 2+9+1+len(k))
	b = append(b, majorTag|24, linkTag)
	b = appendHead(b, majorBytes, uint64(1+len(k)))
	b = append(b, 0x00)
	return append(b, k...), nil
}

// UnmarshalCBOR implements cbor.Unmarshaler.
func (l *Link) UnmarshalCBOR(data []byte) error {
	if len(data) == 1 && data[0] == 0xf6 {
		*l = Link{}
		return nil
	}
	var tag cbor.RawTag
	if err := decMode.Unmarshal(data, &tag); err != nil {
		return fmt.Errorf("link: %w", err)
	}
	if tag.Number != linkTag {
		return fmt.Errorf("link: tag %d, want %d", tag.Number, linkTag)
	}
	var raw []byte
	if err := decMode.Unmarshal(tag.Content, &raw); err != nil {
		return fmt.Errorf("link: content: %w", err)
	}
	c, err := linkCID(raw)
	if err != nil {
		return err
	}
	l.Cid = c
	return nil
}

// linkCID reads a link's content (the byte string under tag 42): 0x00,
// then one binary CID and nothing after it.
func linkCID(raw []byte) (cid.Cid, error) {
	if len(raw) < 2 || raw[0] != 0x00 {
		return cid.Undef, fmt.Errorf("link: content must be 0x00 followed by a binary CID")
	}
	n, c, err := cid.CidFromBytes(raw[1:])
	if err != nil {
		return cid.Undef, fmt.Errorf("link: %w", err)
	}
	if n != len(raw)-1 {
		return cid.Undef, fmt.Errorf("link: %d trailing bytes after CID", len(raw)-1-n)
	}
	return c, nil
}

// MarshalJSON writes the CID's string form, or null for no link.
func (l Link) MarshalJSON() ([]byte, error) {
	if l.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(l.Cid.String())
}

// UnmarshalJSON reads what MarshalJSON writes, and nothing else: a CID in
// another base or case names the same CID, but a record has one text, as
// it has one encoding.
func (l *Link) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*l = Link{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	c, err := cid.Decode(s)
	if err != nil {
		return fmt.Errorf("link: %w", err)
	}
	if canonical := c.String(); s != canonical {
		return fmt.Errorf("link: %q is not the text of its CID, %s", s, canonical)
	}
	l.Cid = c
	return nil
}
