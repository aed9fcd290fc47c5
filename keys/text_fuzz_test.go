package keys

import (
	"bytes"
	"errors"
	"testing"

	"github.com/fxamacker/cbor/v2"
)

// FuzzParseSS58: an accepted address is the one its key prints as.
func FuzzParseSS58(f *testing.F) {
	f.Add(fixedKey(f).Public().SS58())
	f.Add("5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY")
	f.Add("1111111111111111111111111111111111111111111")
	f.Add(ss58Alias(fixedKey(f).Public()))
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseSS58(s)
		if err != nil {
			if !errors.Is(err, ErrBadAddress) {
				t.Fatalf("error does not wrap ErrBadAddress: %v", err)
			}
			return
		}
		if p.SS58() != s {
			t.Fatalf("accepted %q but the key prints as %q", s, p.SS58())
		}
		var q PublicKey
		if err := q.UnmarshalText([]byte(s)); err != nil || q != p {
			t.Fatalf("UnmarshalText disagrees with ParseSS58: %v", err)
		}
	})
}

// FuzzKeyCBOR: public keys and signatures read only from byte strings of
// their exact size, and write back the same bytes.
func FuzzKeyCBOR(f *testing.F) {
	pk, _ := cbor.Marshal(make([]byte, 32))
	sig, _ := cbor.Marshal(make([]byte, 64))
	f.Add(pk)
	f.Add(sig)
	f.Add([]byte{0x58, 0x20})
	f.Add([]byte{0x5f, 0x41, 0x00, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		var p PublicKey
		if err := p.UnmarshalCBOR(data); err == nil {
			out, err := p.MarshalCBOR()
			if err != nil {
				t.Fatal(err)
			}
			var back PublicKey
			if back.UnmarshalCBOR(out) != nil || back != p {
				t.Fatalf("public key from % x does not round-trip", data)
			}
		}
		var s Signature
		if err := s.UnmarshalCBOR(data); err == nil {
			out, err := s.MarshalCBOR()
			if err != nil {
				t.Fatal(err)
			}
			var back Signature
			if back.UnmarshalCBOR(out) != nil || !bytes.Equal(back[:], s[:]) {
				t.Fatalf("signature from % x does not round-trip", data)
			}
		}
	})
}

// FuzzFromURI: development URIs never panic, and one that is accepted
// derives the same key twice.
func FuzzFromURI(f *testing.F) {
	f.Add("//Alice")
	f.Add("//Alice//stash")
	f.Add("//0x01/soft///password")
	f.Add("bottom drive obey lake curtain smoke basket hold race lonely fit walk//Alice")
	f.Fuzz(func(t *testing.T, uri string) {
		k, err := FromURI(uri)
		if err != nil {
			return
		}
		again, err := FromURI(uri)
		if err != nil || again.Public() != k.Public() {
			t.Fatalf("%q derives two keys: %v", uri, err)
		}
	})
}
