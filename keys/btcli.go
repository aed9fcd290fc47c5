package keys

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// ErrBtcliFile is wrapped by every error about a btcli wallet key file's
// content. Like key file errors, messages never quote the file.
var ErrBtcliFile = errors.New("malformed btcli key file")

// btcliFields are the members of a btcli (bittensor-wallet) key file, the
// JSON of ~/.bittensor/wallets/<wallet>/hotkeys/<name>.
var btcliFields = []string{"secretPhrase", "secretSeed", "publicKey", "ss58Address", "accountId", "privateKey"}

// btcliEncrypted are the prefixes bittensor-wallet writes before encrypted
// key data. Hotkeys are normally stored in the clear; coldkeys are not.
var btcliEncrypted = []struct{ prefix, name string }{
	{"$NACL", "NaCl"},
	{"$ANSIBLE_VAULT", "Ansible Vault"},
	{"gAAAAA", "legacy Fernet"},
}

// ParseBtcli reads a btcli wallet key file. The key comes from secretSeed if
// present, else from secretPhrase (a mnemonic); when both are present they
// must give the same key. publicKey, accountId and ss58Address, when
// present, must be the derived key's. privateKey (the 64-byte expanded
// secret) is ignored: our key files store the seed, which it cannot give
// back. Members other than these six are ignored; null counts as absent.
func ParseBtcli(data []byte) (*Hotkey, error) {
	trimmed := bytes.TrimSpace(data)
	for _, e := range btcliEncrypted {
		if bytes.HasPrefix(trimmed, []byte(e.prefix)) {
			return nil, fmt.Errorf("%w: it is encrypted (%s); decrypt it with btcli, or import its mnemonic instead", ErrBtcliFile, e.name)
		}
	}
	f, err := stringObject(data, btcliFields, false, ErrBtcliFile)
	if err != nil {
		return nil, err
	}
	seedText, hasSeed := f["secretSeed"]
	phrase, hasPhrase := f["secretPhrase"]
	var k *Hotkey
	switch {
	case hasSeed:
		seed, ok := looseHex32(seedText)
		if !ok {
			return nil, fmt.Errorf("%w: secretSeed is not 32 bytes of hex", ErrBtcliFile)
		}
		if k, err = FromSeed(seed); err != nil {
			return nil, fmt.Errorf("%w: secretSeed is not a usable key", ErrBtcliFile)
		}
		if hasPhrase {
			fromPhrase, err := FromMnemonic(phrase)
			if err != nil {
				return nil, fmt.Errorf("%w: secretPhrase: %w", ErrBtcliFile, err)
			}
			if fromPhrase.Public() != k.Public() {
				return nil, fmt.Errorf("%w: secretPhrase and secretSeed give different keys", ErrBtcliFile)
			}
		}
	case hasPhrase:
		if k, err = FromMnemonic(phrase); err != nil {
			return nil, fmt.Errorf("%w: secretPhrase: %w", ErrBtcliFile, err)
		}
	default:
		return nil, fmt.Errorf("%w: it has neither secretSeed nor secretPhrase (a public-only key file cannot sign)", ErrBtcliFile)
	}
	pub := k.Public()
	for _, name := range []string{"publicKey", "accountId"} {
		v, ok := f[name]
		if !ok {
			continue
		}
		got, ok := looseHex32(v)
		if !ok {
			return nil, fmt.Errorf("%w: %s is not 32 bytes of hex", ErrBtcliFile, name)
		}
		if PublicKey(got) != pub {
			return nil, fmt.Errorf("%w: %s is not the public key of the file's secret", ErrBtcliFile, name)
		}
	}
	if v, ok := f["ss58Address"]; ok && v != pub.SS58() {
		return nil, fmt.Errorf("%w: ss58Address is not the address (prefix %d) of the file's secret", ErrBtcliFile, SS58Prefix)
	}
	return k, nil
}

// looseHex32 decodes 32 bytes of hex in either case, with or without 0x,
// as Python's bytes.fromhex and substrate-interface accept.
func looseHex32(s string) ([32]byte, bool) {
	var out [32]byte
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		s = s[2:]
	}
	if len(s) != 64 {
		return out, false
	}
	if _, err := hex.Decode(out[:], []byte(s)); err != nil {
		return out, false
	}
	return out, true
}

// ReadBtcliFile loads the hotkey of a btcli wallet key file. Unlike
// ReadKeyFile it does not insist on the file's mode: importing is how a key
// gets into a properly protected file.
func ReadBtcliFile(path string) (*Hotkey, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read btcli key file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read btcli key file %s: %w", path, err)
	}
	if len(data) > maxKeyFileSize {
		return nil, fmt.Errorf("btcli key file %s: %w: larger than %d bytes", path, ErrBtcliFile, maxKeyFileSize)
	}
	k, err := ParseBtcli(data)
	if err != nil {
		return nil, fmt.Errorf("btcli key file %s: %w", path, err)
	}
	return k, nil
}
