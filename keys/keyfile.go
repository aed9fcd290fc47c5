package keys

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// KeyType is the only key type a key file holds.
const KeyType = "sr25519"

// maxKeyFileSize bounds what a reader takes in: a key file is about 250
// bytes, a btcli file under 1 KiB.
const maxKeyFileSize = 64 << 10

// ErrKeyFile is wrapped by every error about a key file's content. Messages
// name fields, byte offsets and lengths, never values: a value may be a
// secret, or a secret pasted into the wrong field.
var ErrKeyFile = errors.New("malformed key file")

// ErrNoSeed is returned when a hotkey without a 32-byte seed (one derived
// through a soft junction) is to be written to a key file.
var ErrNoSeed = errors.New("hotkey has no 32-byte seed (soft-derived keys cannot be stored)")

// keyFile is the key file layout of spec/signatures.md, in field order.
type keyFile struct {
	Type       string `json:"type"`
	SS58       string `json:"ss58"`
	PublicKey  string `json:"public_key"`
	SecretSeed string `json:"secret_seed"`
}

// MarshalKeyFile returns the key file of k: indented JSON, newline-terminated.
func MarshalKeyFile(k *Hotkey) ([]byte, error) {
	seed, ok := k.Seed()
	if !ok {
		return nil, ErrNoSeed
	}
	pub := k.Public()
	out, err := json.MarshalIndent(keyFile{
		Type:       KeyType,
		SS58:       pub.SS58(),
		PublicKey:  "0x" + hex.EncodeToString(pub[:]),
		SecretSeed: "0x" + hex.EncodeToString(seed[:]),
	}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode key file: %w", err)
	}
	return append(out, '\n'), nil
}

// ParseKeyFile reads a key file: one JSON object with exactly the members
// type, ss58, public_key and secret_seed, all strings. It derives the key
// from secret_seed and checks that public_key and ss58 belong to it.
func ParseKeyFile(data []byte) (*Hotkey, error) {
	fields, err := stringObject(data, []string{"type", "ss58", "public_key", "secret_seed"}, true, ErrKeyFile)
	if err != nil {
		if isBtcli(data) {
			return nil, fmt.Errorf("%w (it is a btcli wallet file: import it with ledger keys import --btcli)", err)
		}
		return nil, err
	}
	for _, name := range []string{"type", "ss58", "public_key", "secret_seed"} {
		if _, ok := fields[name]; !ok {
			return nil, fmt.Errorf("%w: member %q is missing", ErrKeyFile, name)
		}
	}
	if fields["type"] != KeyType {
		return nil, fmt.Errorf("%w: type is not %q", ErrKeyFile, KeyType)
	}
	seed, ok := strictHex32(fields["secret_seed"])
	if !ok {
		return nil, fmt.Errorf("%w: secret_seed is not 0x followed by 64 lower-case hex digits", ErrKeyFile)
	}
	pub, ok := strictHex32(fields["public_key"])
	if !ok {
		return nil, fmt.Errorf("%w: public_key is not 0x followed by 64 lower-case hex digits", ErrKeyFile)
	}
	k, err := FromSeed(seed)
	if err != nil {
		return nil, fmt.Errorf("%w: secret_seed is not a usable key", ErrKeyFile)
	}
	if PublicKey(pub) != k.Public() {
		return nil, fmt.Errorf("%w: public_key is not the public key of secret_seed", ErrKeyFile)
	}
	if fields["ss58"] != k.Public().SS58() {
		return nil, fmt.Errorf("%w: ss58 is not the address (prefix %d) of secret_seed", ErrKeyFile, SS58Prefix)
	}
	return k, nil
}

// isBtcli reports whether data is a JSON object with a btcli wallet
// file's secret: a hotkey file given where a key file belongs.
func isBtcli(data []byte) bool {
	f, err := stringObject(data, btcliFields, false, ErrBtcliFile)
	if err != nil {
		return false
	}
	_, seed := f["secretSeed"]
	_, phrase := f["secretPhrase"]
	return seed || phrase
}

// strictHex32 decodes "0x" and 64 lower-case hex digits.
func strictHex32(s string) ([32]byte, bool) {
	var out [32]byte
	if len(s) != 66 || !strings.HasPrefix(s, "0x") || strings.ToLower(s) != s {
		return out, false
	}
	if _, err := hex.Decode(out[:], []byte(s[2:])); err != nil {
		return out, false
	}
	return out, true
}
