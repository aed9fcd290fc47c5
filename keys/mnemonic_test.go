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
