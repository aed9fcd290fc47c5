package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/keys"
)

// devPasswordAddress is the development phrase with password "password":
// Substrate's "Secret URI Test Vectors", as polkadot-js/common carries them
// (packages/keyring/src/suri.spec.ts).
const devPasswordAddress = "5GC6LfpV352HtJPySfAecb5JdePtf4R9Vq49NUU8RhzgBqgq"

// TestKeysImportMnemonicPassword imports the development phrase with a
// password in each way the CLI takes one, none of them a flag value.
func TestKeysImportMnemonicPassword(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	phraseFile := write("phrase.txt", devPhrase+"\n")
	uriFile := write("uri.txt", devPhrase+"///password\n")
	passwordFile := write("password.txt", "password\n")
	crlfPasswordFile := write("password-crlf.txt", "password\r\n")
	spacedPasswordFile := write("password-spaced.txt", "password \n")

	cases := []struct {
		name, stdin string
		args        []string
		address     string
	}{
		{"phrase///password in the mnemonic file", "", []string{"--mnemonic-file", uriFile}, devPasswordAddress},
		{"--password-file with --mnemonic-file", "", []string{"--mnemonic-file", phraseFile, "--password-file", passwordFile}, devPasswordAddress},
		{"--password-file, CRLF", "", []string{"--mnemonic-file", phraseFile, "--password-file", crlfPasswordFile}, devPasswordAddress},
		{"phrase///password on stdin", devPhrase + "///password\n", nil, devPasswordAddress},
		{"--password-file with stdin", devPhrase + "\n", []string{"--password-file", passwordFile}, devPasswordAddress},
		// Only the line end is removed: a trailing space is part of the
		// password, and so another key.
		{"trailing space is kept", "", []string{"--mnemonic-file", phraseFile, "--password-file", spacedPasswordFile}, ""},
		{"empty ///", devPhrase + "///\n", nil, devAddress},
	}
	for i, c := range cases {
		out := filepath.Join(dir, "imported", string(rune('a'+i))+".json")
		args := append([]string{"keys", "import", "--out", out, "--json"}, c.args...)
		stdout, stderr, err := runLedger(t, c.stdin, args...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		info := decodeInfo(t, stdout)
		if c.address == "" {
			if info.SS58 == devPasswordAddress || info.SS58 == devAddress {
				t.Fatalf("%s: imported %s, want a third key", c.name, info.SS58)
			}
		} else if info.SS58 != c.address {
			t.Fatalf("%s: imported %s, want %s", c.name, info.SS58, c.address)
		}
		if k, err := keys.ReadKeyFile(out); err != nil || k.Public().SS58() != info.SS58 {
			t.Fatalf("%s: key file holds another key (%v)", c.name, err)
		}
		if strings.Contains(stdout+stderr, "password\n") || strings.Contains(stdout+stderr, "curtain") {
			t.Fatalf("%s: a secret was printed: %q %q", c.name, stdout, stderr)
		}
	}
}

// TestKeysImportPasswordRefusals: a password as a flag value, two
// passwords, an empty password file, and a password with a source that
// has no mnemonic are refused with exit code 2, without writing a key
// file and without repeating the password.
func TestKeysImportPasswordRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const secret = "correct-horse-7"
	phraseFile := filepath.Join(dir, "phrase.txt")
	uriFile := filepath.Join(dir, "uri.txt")
	passwordFile := filepath.Join(dir, "password.txt")
	emptyFile := filepath.Join(dir, "empty.txt")
	for p, content := range map[string]string{
		phraseFile: devPhrase + "\n", uriFile: devPhrase + "///" + secret + "\n",
		passwordFile: secret + "\n", emptyFile: "\n",
	} {
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "hotkey.json")
	cases := []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"--password", devPhrase, []string{"--password", secret}, "never taken as a flag value"},
		{"--password=", devPhrase, []string{"--password=" + secret}, "never taken as a flag value"},
		{"two passwords", "", []string{"--mnemonic-file", uriFile, "--password-file", passwordFile}, "two passwords"},
		{"empty password file", "", []string{"--mnemonic-file", phraseFile, "--password-file", emptyFile}, "is empty"},
		{"with --uri", "", []string{"--uri", "//Alice", "--password-file", passwordFile}, "password-file"},
		{"with --btcli", "", []string{"--btcli", phraseFile, "--password-file", passwordFile}, "password-file"},
	}
	for _, c := range cases {
		args := append([]string{"keys", "import", "--out", out}, c.args...)
		stdout, stderr, err := runLedger(t, c.stdin, args...)
		if !usageExit(err) || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: error %v, want an exit-2 error about %q", c.name, err, c.want)
		}
		if strings.Contains(stdout+stderr+err.Error(), secret) {
			t.Fatalf("%s: the password was printed: %q %q %v", c.name, stdout, stderr, err)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%s: a key file was written", c.name)
		}
	}
}
