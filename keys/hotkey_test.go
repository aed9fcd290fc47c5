package keys

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/mr-tron/base58"
	subkey "github.com/vedhavyas/go-subkey/v2"
	"golang.org/x/crypto/blake2b"
)

const aliceAddress = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY"

func TestAliceAddress(t *testing.T) {
	k, err := FromURI("//Alice")
	if err != nil {
		t.Fatal(err)
	}
	if got := k.Public().SS58(); got != aliceAddress {
		t.Fatalf("//Alice is %s, want %s", got, aliceAddress)
	}
}

func TestVerifiesAnExternalSignature(t *testing.T) {
	// Alice's signature of 0xdeadbeef made outside this code base (the
	// vector go-subkey's own tests carry).
	pub, err := ParseSS58(aliceAddress)
	if err != nil {
		t.Fatal(err)
	}
	var sig Signature
	hex.Decode(sig[:], []byte("dc7cf771e1989a5c3cddca30ec5efaeff9a5c14a36c3c032510019e7144e0375f9207ef6745390ca3dc76b307b26f60125c942e2b7fb23100cc79402a12dde8b"))
	msg := []byte{0xde, 0xad, 0xbe, 0xef}
	if !Verify(pub, msg, sig) {
		t.Fatal("external signature rejected")
	}
	if Verify(pub, []byte{0xba, 0xdd, 0xbe, 0xef}, sig) {
		t.Fatal("signature accepted for another message")
	}
}

func TestSignVerify(t *testing.T) {
	k, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte("block bytes")
	sig, err := k.Sign(msg)
	if err != nil {
		t.Fatal(err)
	}
	if !Verify(k.Public(), msg, sig) {
		t.Fatal("own signature rejected")
	}
	sig[0] ^= 1
	if Verify(k.Public(), msg, sig) {
		t.Fatal("altered signature accepted")
	}
	other, _ := Generate()
	sig[0] ^= 1
	if Verify(other.Public(), msg, sig) {
		t.Fatal("signature accepted under another key")
	}
}

// TestSecretsDoNotPrint prints hotkeys every way fmt, encoding/json and
// log/slog can: by pointer and by value, with every verb, and inside
// structs whose unexported fields fmt prints without calling methods.
// Neither the seed nor the secret key may show, in any spelling.
func TestSecretsDoNotPrint(t *testing.T) {
	t.Parallel()
	alice, err := FromURI("//Alice") // derived: go-subkey holds a *keyRing
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := Generate() // generated: go-subkey holds a keyRing value
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []*Hotkey{alice, fresh} {
		seed, _ := k.Seed()
		expanded := k.s.scalar.Encode(nil)
		var spellings []string
		for _, secret := range [][]byte{seed[:4], expanded[:4]} {
			spellings = append(spellings,
				hex.EncodeToString(secret),
				strings.Trim(fmt.Sprint(secret), "[]"),
				strings.TrimPrefix(fmt.Sprintf("%#v", secret), "[]byte{"),
				strings.Trim(fmt.Sprintf("%o", secret), "[]"),
				string(secret))
		}
		type holder struct {
			key   Hotkey
			ptr   *Hotkey
			iface any
			Key   Hotkey
			Ptr   *Hotkey
			inner struct{ key Hotkey }
		}
		h := holder{key: *k, ptr: k, iface: *k, Key: *k, Ptr: k}
		h.inner.key = *k
		var printed []string
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%o", "%b", "%c", "%e", "%t", "%U", "%T", "%p"} {
			for _, arg := range []any{k, *k, h, &h} {
				printed = append(printed, fmt.Sprintf(verb, arg))
			}
		}
		printed = append(printed, fmt.Sprint(k, *k, h), fmt.Sprintln(k, *k, h))
		for _, arg := range []any{k, *k, h} {
			b, err := json.Marshal(arg)
			if err != nil {
				t.Fatal(err)
			}
			printed = append(printed, string(b))
		}
		var logged bytes.Buffer
		slog.New(slog.NewTextHandler(&logged, nil)).Info("key", "ptr", k, "value", *k, "holder", h)
		slog.New(slog.NewJSONHandler(&logged, nil)).Info("key", "ptr", k, "value", *k, "holder", h)
		printed = append(printed, logged.String())
		for _, s := range printed {
			for _, secret := range spellings {
				if strings.Contains(s, secret) {
					t.Fatalf("%s: secret printed (as %q): %s", k.Public().Short(), secret, s)
				}
			}
		}
		want := "hotkey " + k.Public().SS58()
		if got := fmt.Sprintf("%v|%+v|%#v|%d", k, *k, k, *k); got != strings.Repeat(want+"|", 3)+want {
			t.Fatalf("a hotkey prints as %q, want its address", got)
		}
	}
	if _, err := FromURI("not a valid phrase at all"); err == nil || strings.Contains(err.Error(), "phrase at all") {
		t.Fatalf("bad URI error leaks the URI or is nil: %v", err)
	}
}

func TestParseSS58Rejects(t *testing.T) {
	for _, s := range []string{"", "5Grw", aliceAddress[:len(aliceAddress)-1] + "X", "1" + aliceAddress[1:]} {
		if _, err := ParseSS58(s); err == nil {
			t.Errorf("ParseSS58(%q) accepted", s)
		}
	}
}

// ss58Alias spells pub's address with the two-byte form of prefix 42
// (bytes 4a 80, which SS58's two-byte prefix decoding reads as 42) and a
// valid checksum: a second text for the same key and network.
func ss58Alias(pub PublicKey) string {
	body := append([]byte{0x4a, 0x80}, pub[:]...)
	sum := blake2b.Sum512(append([]byte("SS58PRE"), body...))
	return base58.Encode(append(body, sum[:2]...))
}

// An address has one spelling: the two-byte prefix form of 42 names the
// same key but is not the address, and ParseSS58 refuses it.
func TestParseSS58RejectsTwoBytePrefix(t *testing.T) {
	t.Parallel()
	pub, err := ParseSS58(aliceAddress)
	if err != nil {
		t.Fatal(err)
	}
	alias := ss58Alias(pub)
	network, decoded, err := subkey.SS58Decode(alias)
	if err != nil || network != SS58Prefix || !bytes.Equal(decoded, pub[:]) {
		t.Fatalf("the alias is not a checksummed prefix-42 spelling of //Alice: %d %x %v", network, decoded, err)
	}
	if p, err := ParseSS58(alias); !errors.Is(err, ErrBadAddress) {
		t.Fatalf("ParseSS58(%s) = %s, %v; want ErrBadAddress", alias, p, err)
	}
	var p PublicKey
	if err := p.UnmarshalText([]byte(alias)); !errors.Is(err, ErrBadAddress) {
		t.Fatalf("UnmarshalText accepted the alias: %v", err)
	}
}

// A secret pasted where an address belongs (a --validator flag, say) is not
// repeated by the error: only text of an address's length is quoted.
func TestParseSS58DoesNotQuoteSecrets(t *testing.T) {
	t.Parallel()
	k := fixedKey(t)
	seed, _ := k.Seed()
	seedHex := hex.EncodeToString(seed[:])
	for _, s := range []string{"0x" + seedHex, seedHex, devPhrase, "//Alice///" + seedHex} {
		_, err := ParseSS58(s)
		if !errors.Is(err, ErrBadAddress) {
			t.Fatalf("ParseSS58 accepted a secret: %v", err)
		}
		if msg := err.Error(); strings.Contains(msg, seedHex[:16]) || strings.Contains(msg, "curtain") {
			t.Fatalf("error repeats the secret: %s", msg)
		}
	}
	if _, err := ParseSS58(aliceAddress[:47] + "X"); err == nil || !strings.Contains(err.Error(), aliceAddress[:47]) {
		t.Fatalf("an address-length input should be quoted: %v", err)
	}
}
