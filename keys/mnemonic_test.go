package keys

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	schnorrkel "github.com/ChainSafe/go-schnorrkel"
	bip39 "github.com/cosmos/go-bip39"
)

// devPhrase is Substrate's public development mnemonic; its root key is
// published in Substrate's documentation (`subkey inspect`).
const devPhrase = "bottom drive obey lake curtain smoke basket hold race lonely fit walk"

const (
	devSeedHex = "fac7959dbfe72f052e5a0c3c8d6530f202b02fd8f9f5ca3580ec8deb7797479e"
	devAddress = "5DfhGyQdFobKM8NsWvEeAKk5EQQgYe9AydgJ7rMB6E1EqRzV"
)

func TestMnemonicDevPhrase(t *testing.T) {
	t.Parallel()
	for _, phrase := range []string{devPhrase, "  BOTTOM drive\tobey lake curtain smoke basket hold race lonely fit walk\n"} {
		seed, err := MnemonicSeed(phrase)
		if err != nil {
			t.Fatal(err)
		}
		if got := hex.EncodeToString(seed[:]); got != devSeedHex {
			t.Fatalf("seed %s, want %s", got, devSeedHex)
		}
		k, err := FromMnemonic(phrase)
		if err != nil {
			t.Fatal(err)
		}
		if got := k.Public().SS58(); got != devAddress {
			t.Fatalf("address %s, want %s", got, devAddress)
		}
	}
}

// Our entropy decoding against go-schnorrkel's (the library go-subkey uses)
// for every mnemonic length.
func TestMnemonicMatchesSchnorrkel(t *testing.T) {
	t.Parallel()
	for _, bits := range []int{128, 160, 192, 224, 256} {
		for range 5 {
			entropy, err := bip39.NewEntropy(bits)
			if err != nil {
				t.Fatal(err)
			}
			phrase, err := bip39.NewMnemonic(entropy)
			if err != nil {
				t.Fatal(err)
			}
			want, err := schnorrkel.MiniSecretKeyFromMnemonic(phrase, "")
			if err != nil {
				t.Fatal(err)
			}
			got, err := MnemonicSeed(phrase)
			if err != nil {
				t.Fatalf("%d-bit mnemonic rejected: %v", bits, err)
			}
			if got != want.Encode() {
				t.Fatalf("%d-bit mnemonic: seed differs from go-schnorrkel's", bits)
			}
		}
	}
}

func TestMnemonicRejects(t *testing.T) {
	t.Parallel()
	words := strings.Fields(devPhrase)
	swapped := append([]string{words[1], words[0]}, words[2:]...)
	cases := []struct {
		name, phrase, want string
	}{
		{"empty", "", "0 words"},
		{"eleven words", strings.Join(words[:11], " "), "11 words"},
		{"unknown word", strings.Join(append(words[:4:4], append([]string{"zzzzq"}, words[5:]...)...), " "), "word 5 "},
		{"bad checksum", strings.Join(swapped, " "), "checksum"},
		{"dev URI", "//Alice", "1 words"},
	}
	for _, c := range cases {
		_, err := FromMnemonic(c.phrase)
		if !errors.Is(err, ErrBadMnemonic) {
			t.Errorf("%s: error %v, want ErrBadMnemonic", c.name, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not say %q", c.name, err, c.want)
		}
		for _, w := range strings.Fields(c.phrase) {
			if len(w) > 3 && strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q quotes the word %q", c.name, err, w)
			}
		}
	}
}

// TestMnemonicPasswordVectors checks the password rule against published
// vectors: substrate-bip39's test vectors (password "Substrate"), as
// carried by Kagome's test/core/crypto/bip39/bip39_integration_test.cpp
// (qdrvm/kagome): the first 32 bytes of the 64-byte seed are the mini
// secret key.
func TestMnemonicPasswordVectors(t *testing.T) {
	t.Parallel()
	cases := []struct{ phrase, seed string }{
		{"abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
			"44e9d125f037ac1d51f0a7d3649689d422c2af8b1ec8e00d71db4d7bf6d127e3"},
		{"legal winner thank year wave sausage worth useful legal winner thank yellow",
			"4313249608fe8ac10fd5886c92c4579007272cb77c21551ee5b8d60b78041685"},
		{"zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong",
			"227d6256fd4f9ccaf06c45eaa4b2345969640462bbb00c5f51f43cb43418c7a7"},
		{"hamster diagram private dutch cause delay private meat slide toddler razor book happy fancy gospel tennis maple dilemma loan word shrug inflict delay length",
			"7c60c555126c297deddddd59f8cdcdc9e3608944455824dd604897984b5cc369"},
	}
	for _, c := range cases {
		seed, err := MnemonicPasswordSeed(c.phrase, "Substrate")
		if err != nil {
			t.Fatal(err)
		}
		if got := hex.EncodeToString(seed[:]); got != c.seed {
			t.Errorf("%.20s...: seed %s, want %s", c.phrase, got, c.seed)
		}
	}
}

// TestMnemonicPasswordDevPhrase: the development phrase with password
// "password" gives the key Substrate's "Secret URI Test Vectors" (wiki)
// publish for "phrase///password", as polkadot-js/common carries them in
// packages/keyring/src/suri.spec.ts; go-subkey (go-schnorrkel's mnemonic
// code, not ours) agrees; the empty password gives the plain phrase's key.
func TestMnemonicPasswordDevPhrase(t *testing.T) {
	t.Parallel()
	const (
		devPasswordPublic  = "b69355deefa7a8f33e9297f5af22e680f03597a99d4f4b1c44be47e7a2275802"
		devPasswordAddress = "5GC6LfpV352HtJPySfAecb5JdePtf4R9Vq49NUU8RhzgBqgq"
	)
	k, err := FromMnemonicPassword(devPhrase, "password")
	if err != nil {
		t.Fatal(err)
	}
	uri, err := FromURI(devPhrase + "///password")
	if err != nil {
		t.Fatal(err)
	}
	pub := k.Public()
	if pub != uri.Public() {
		t.Fatalf("FromMnemonicPassword %x, go-subkey %x", pub, uri.Public())
	}
	if got := hex.EncodeToString(pub[:]); got != devPasswordPublic {
		t.Fatalf("public key %s, want %s", got, devPasswordPublic)
	}
	if got := pub.SS58(); got != devPasswordAddress {
		t.Fatalf("address %s, want %s", got, devPasswordAddress)
	}
	empty, err := FromMnemonicPassword(devPhrase, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := empty.Public().SS58(); got != devAddress {
		t.Fatalf("empty password: address %s, want %s", got, devAddress)
	}
}
