package keys

import (
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
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

func TestSecretsDoNotPrint(t *testing.T) {
	k, _ := FromURI("//Alice")
	seed, _ := k.Seed()
	for _, s := range []string{fmt.Sprint(k), fmt.Sprintf("%v %+v %#v", k, k, k)} {
		if strings.Contains(s, hex.EncodeToString(seed[:])) || strings.Contains(s, fmt.Sprint(seed[:4])) {
			t.Fatalf("secret printed: %s", s)
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
