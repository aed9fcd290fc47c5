package codec

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzLink: a link reads from CBOR only as null or a tag-42 CID, and from
// JSON only as null or a CID's own text; whatever it reads it writes back
// in the form it was read.
func FuzzLink(f *testing.F) {
	_, c, err := Encode(map[string]int{"a": 1})
	if err != nil {
		f.Fatal(err)
	}
	cb, _ := Link{Cid: c}.MarshalCBOR()
	js, _ := Link{Cid: c}.MarshalJSON()
	f.Add(cb)
	f.Add(js)
	f.Add([]byte{0xf6})
	f.Add([]byte("null"))
	f.Add([]byte{0xd8, 0x2a, 0x41, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		var l Link
		if err := l.UnmarshalCBOR(data); err == nil {
			out, err := l.MarshalCBOR()
			if err != nil {
				t.Fatalf("link read from % x does not encode: %v", data, err)
			}
			var back Link
			if err := back.UnmarshalCBOR(out); err != nil || !back.Cid.Equals(l.Cid) {
				t.Fatalf("link read from % x does not round-trip: %v", data, err)
			}
		}
		var j Link
		if err := j.UnmarshalJSON(data); err == nil {
			out, err := j.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			var back Link
			if err := back.UnmarshalJSON(out); err != nil || !back.Cid.Equals(j.Cid) {
				t.Fatalf("link read from %q does not round-trip through %q: %v", data, out, err)
			}
			if j.IsZero() && !bytes.Equal(data, []byte("null")) {
				t.Fatalf("%q read as no link", data)
			}
			var text string
			if !j.IsZero() && (json.Unmarshal(data, &text) != nil || text != j.Cid.String()) {
				t.Fatalf("%q read as CID %s, whose text it is not", data, j.Cid)
			}
		}
	})
}
