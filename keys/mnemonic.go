package keys

import (
	"crypto/pbkdf2"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"fmt"
	"strings"

	bip39 "github.com/cosmos/go-bip39"
)

// ErrBadMnemonic is wrapped by every mnemonic error. The messages name word
// positions and counts, never words: a mnemonic is a secret.
var ErrBadMnemonic = errors.New("bad mnemonic")

var englishIndex = func() map[string]int {
	m := make(map[string]int, len(bip39.EnglishWordList))
	for i, w := range bip39.EnglishWordList {
		m[w] = i
	}
	return m
}()

// FromMnemonic derives the hotkey of a BIP39 English mnemonic as Substrate
// and Bittensor do (substrate-bip39, empty password): the seed comes from
// the phrase's entropy, not from its text as in Bitcoin's BIP39. Words may
// be separated by any whitespace and are matched case-insensitively.
func FromMnemonic(phrase string) (*Hotkey, error) {
	return FromMnemonicPassword(phrase, "")
}

// FromMnemonicPassword derives the hotkey of a BIP39 English mnemonic with
// a password, as Substrate does for the secret URI "phrase///password"
// (subkey, polkadot.js). The password is used byte for byte: no Unicode
// normalization, no trimming. The empty password gives FromMnemonic's key.
func FromMnemonicPassword(phrase, password string) (*Hotkey, error) {
	seed, err := MnemonicPasswordSeed(phrase, password)
	if err != nil {
		return nil, err
	}
	return FromSeed(seed)
}

// MnemonicSeed returns the 32-byte mini secret key of a BIP39 English
// mnemonic (spec/signatures.md, "Mnemonics").
func MnemonicSeed(phrase string) ([32]byte, error) {
	return MnemonicPasswordSeed(phrase, "")
}

// MnemonicPasswordSeed returns the 32-byte mini secret key of a BIP39
// English mnemonic with a password: the password is appended to the PBKDF2
// salt "mnemonic" (substrate-bip39).
func MnemonicPasswordSeed(phrase, password string) ([32]byte, error) {
	var seed [32]byte
	entropy, err := mnemonicEntropy(phrase)
	if err != nil {
		return seed, err
	}
	out, err := pbkdf2.Key(sha512.New, string(entropy), []byte("mnemonic"+password), 2048, 64)
	if err != nil {
		return seed, fmt.Errorf("%w: %v", ErrBadMnemonic, err)
	}
	copy(seed[:], out)
	return seed, nil
}

// mnemonicEntropy decodes the words to the entropy they carry and checks the
// BIP39 checksum: the first len/32 bits of SHA-256(entropy).
func mnemonicEntropy(phrase string) ([]byte, error) {
	words := strings.Fields(strings.ToLower(phrase))
	switch len(words) {
	case 12, 15, 18, 21, 24:
	default:
		return nil, fmt.Errorf("%w: %d words, want 12, 15, 18, 21 or 24", ErrBadMnemonic, len(words))
	}
	bits := make([]byte, 0, len(words)*11)
	for i, w := range words {
		idx, ok := englishIndex[w]
		if !ok {
			return nil, fmt.Errorf("%w: word %d is not in the BIP39 English word list", ErrBadMnemonic, i+1)
		}
		for b := 10; b >= 0; b-- {
			bits = append(bits, byte(idx>>b)&1)
		}
	}
	checksumBits := len(bits) / 33
	entropy := make([]byte, (len(bits)-checksumBits)/8)
	for i := range entropy {
		for _, bit := range bits[i*8 : i*8+8] {
			entropy[i] = entropy[i]<<1 | bit
		}
	}
	sum := sha256.Sum256(entropy)
	for i, bit := range bits[len(entropy)*8:] {
		if sum[0]>>(7-i)&1 != bit {
			return nil, fmt.Errorf("%w: the checksum does not match (a word is wrong or out of order)", ErrBadMnemonic)
		}
	}
	return entropy, nil
}

// SplitPassword splits a Substrate secret URI "phrase///password" at its
// first "///": it returns the phrase, the password (everything after, as
// is) and whether there was one.
func SplitPassword(uri string) (phrase, password string, ok bool) {
	return strings.Cut(uri, "///")
}
