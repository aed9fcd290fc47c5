package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/keys"
)

const (
	devPhrase    = "bottom drive obey lake curtain smoke basket hold race lonely fit walk"
	devAddress   = "5DfhGyQdFobKM8NsWvEeAKk5EQQgYe9AydgJ7rMB6E1EqRzV"
	devPublicHex = "0x46ebddef8cd9bb167dc30878d7113b7e168e6f0646beffd77d69d39bad76b47a"
	devSeedHex   = "0xfac7959dbfe72f052e5a0c3c8d6530f202b02fd8f9f5ca3580ec8deb7797479e"
	aliceAddress = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY"
)

// runLedger runs the CLI in-process with stdin and returns stdout, stderr
// and the error Execute returned.
func runLedger(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	root := newRootCmd()
	var out, errOut bytes.Buffer
	root.SetArgs(args)
	root.SetIn(strings.NewReader(stdin))
	root.SetOut(&out)
	root.SetErr(&errOut)
	err := root.Execute()
	return out.String(), errOut.String(), err
}

// usageExit reports whether main would exit 2 for err.
func usageExit(err error) bool {
	var cf checkFailed
	return err != nil && !errors.As(err, &cf)
}

func decodeInfo(t *testing.T, out string) keyInfo {
	t.Helper()
	var info keyInfo
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&info); err != nil {
		t.Fatalf("--json output %q: %v", out, err)
	}
	return info
}

// secretOf returns the secret_seed of a key file, to check it never prints.
func secretOf(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		SecretSeed string `json:"secret_seed"`
	}
	if err := json.Unmarshal(data, &f); err != nil || len(f.SecretSeed) != 66 {
		t.Fatalf("key file %s has no secret_seed: %v", path, err)
	}
	return f.SecretSeed[2:]
}

func TestKeysNewShow(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "keys", "hotkey.json")
	out, stderr, err := runLedger(t, "", "keys", "new", "--out", path, "--json")
	if err != nil {
		t.Fatal(err)
	}
	created := decodeInfo(t, out)
	if created.File != path || !strings.HasPrefix(created.SS58, "5") || len(created.PublicKey) != 66 {
		t.Fatalf("keys new printed %+v", created)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, mode %v", err, info.Mode())
	}
	secret := secretOf(t, path)

	out, _, err = runLedger(t, "", "keys", "show", "--key", path, "--json")
	if err != nil {
		t.Fatal(err)
	}
	if shown := decodeInfo(t, out); shown != created {
		t.Fatalf("keys show printed %+v, keys new %+v", shown, created)
	}
	text, _, err := runLedger(t, "", "keys", "show", "--key", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ss58:       " + created.SS58, "public_key: " + created.PublicKey} {
		if !strings.Contains(text, want) {
			t.Fatalf("keys show text %q lacks %q", text, want)
		}
	}
	for _, s := range []string{out, text, stderr} {
		if strings.Contains(s, secret) || strings.Contains(s, secret[:16]) {
			t.Fatal("a command printed the secret seed")
		}
	}
	k, err := keys.ReadKeyFile(path)
	if err != nil || k.Public().SS58() != created.SS58 {
		t.Fatalf("the key file does not hold the printed key: %v", err)
	}
}

func TestKeysNewRefusesOverwrite(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hotkey.json")
	if _, _, err := runLedger(t, "", "keys", "new", "--out", path); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	_, _, err := runLedger(t, "", "keys", "new", "--out", path)
	if !usageExit(err) || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("second keys new: %v, want an exit-2 error suggesting --force", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("existing key file changed")
	}
	if _, _, err := runLedger(t, "", "keys", "new", "--out", path, "--force"); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); bytes.Equal(before, after) {
		t.Fatal("--force did not replace the key")
	}
}

func TestKeysShowRejectsOpenMode(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hotkey.json")
	if _, _, err := runLedger(t, "", "keys", "import", "--uri", "//Alice", "--out", path); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o644)
	_, _, err := runLedger(t, "", "keys", "show", "--key", path)
	if !usageExit(err) || !errors.Is(err, keys.ErrInsecureKeyFile) {
		t.Fatalf("show of a 0644 key file: %v", err)
	}
	if !strings.Contains(err.Error(), "0644") || !strings.Contains(err.Error(), "chmod 600 "+path) {
		t.Fatalf("message %q should give the mode and the fix", err)
	}
}

func TestKeysImport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	btcliFile := filepath.Join(dir, "btcli-hotkey")
	os.WriteFile(btcliFile, []byte(`{"accountId": "`+devPublicHex+`", "publicKey": "`+devPublicHex+`", "secretPhrase": "`+devPhrase+
		`", "secretSeed": "`+devSeedHex+`", "ss58Address": "`+devAddress+`"}`), 0o644)
	phraseFile := filepath.Join(dir, "phrase.txt")
	os.WriteFile(phraseFile, []byte(devPhrase+"\n"), 0o600)

	cases := []struct {
		name, stdin string
		args        []string
		address     string
		warns       bool
	}{
		{"btcli", "", []string{"--btcli", btcliFile}, devAddress, false},
		{"mnemonic file", "", []string{"--mnemonic-file", phraseFile}, devAddress, false},
		{"stdin", "  " + devPhrase + "\n", nil, devAddress, false},
		{"dev uri", "", []string{"--uri", "//Alice"}, aliceAddress, true},
	}
	for i, c := range cases {
		out := filepath.Join(dir, "imported", string(rune('a'+i))+".json")
		args := append([]string{"keys", "import", "--out", out, "--json"}, c.args...)
		stdout, stderr, err := runLedger(t, c.stdin, args...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if info := decodeInfo(t, stdout); info.SS58 != c.address || info.File != out {
			t.Fatalf("%s: printed %+v, want %s", c.name, info, c.address)
		}
		if k, err := keys.ReadKeyFile(out); err != nil || k.Public().SS58() != c.address {
			t.Fatalf("%s: key file holds another key (%v)", c.name, err)
		}
		if warned := strings.Contains(stderr, "warning:") && strings.Contains(stderr, "public"); warned != c.warns {
			t.Fatalf("%s: stderr %q, want a public-key warning: %v", c.name, stderr, c.warns)
		}
		if strings.Contains(stdout+stderr, "curtain") || strings.Contains(stdout+stderr, devSeedHex[2:18]) {
			t.Fatalf("%s: the secret was printed", c.name)
		}
	}
}

func TestKeysImportErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "hotkey.json")
	encrypted := filepath.Join(dir, "coldkey")
	os.WriteFile(encrypted, []byte("$NACL\x00\x01"), 0o600)
	wrongAddr := filepath.Join(dir, "wrong")
	os.WriteFile(wrongAddr, []byte(`{"secretSeed": "`+devSeedHex+`", "ss58Address": "`+aliceAddress+`"}`), 0o600)
	badPhrase := filepath.Join(dir, "bad.txt")
	os.WriteFile(badPhrase, []byte("bottom drive obey lake curtain smoke basket hold race lonely walk fit"), 0o600)

	cases := []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"no --out", devPhrase, []string{"keys", "import"}, `"out" not set`},
		{"two sources", "", []string{"keys", "import", "--uri", "//Alice", "--btcli", encrypted, "--out", out}, "none of the others"},
		{"empty stdin", "", []string{"keys", "import", "--out", out}, "no mnemonic on standard input"},
		{"mnemonic as --uri", "", []string{"keys", "import", "--uri", devPhrase, "--out", out}, "only development keys"},
		{"soft-derived dev key", "", []string{"keys", "import", "--uri", "//Alice/soft", "--out", out}, "no 32-byte seed"},
		{"missing btcli file", "", []string{"keys", "import", "--btcli", filepath.Join(dir, "nope"), "--out", out}, "no such file"},
		{"encrypted btcli file", "", []string{"keys", "import", "--btcli", encrypted, "--out", out}, "encrypted (NaCl)"},
		{"btcli address mismatch", "", []string{"keys", "import", "--btcli", wrongAddr, "--out", out}, "ss58Address is not the address"},
		{"bad mnemonic file", "", []string{"keys", "import", "--mnemonic-file", badPhrase, "--out", out}, "checksum"},
		{"missing mnemonic file", "", []string{"keys", "import", "--mnemonic-file", filepath.Join(dir, "nope"), "--out", out}, "no such file"},
		{"stray argument", "", []string{"keys", "show", "--key", out, "extra"}, "unknown command"},
		{"missing key file", "", []string{"keys", "show", "--key", filepath.Join(dir, "nope")}, "no such file"},
	}
	for _, c := range cases {
		_, _, err := runLedger(t, c.stdin, c.args...)
		if !usageExit(err) {
			t.Errorf("%s: error %v, want an exit-2 error", c.name, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not say %q", c.name, err, c.want)
		}
		if strings.Contains(err.Error(), "curtain") {
			t.Errorf("%s: error %q quotes the mnemonic", c.name, err)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a failed import wrote a key file")
	}
}

func TestKeysExitCodes(t *testing.T) {
	t.Parallel()
	if code := run([]string{"keys", "show", "--key", filepath.Join(t.TempDir(), "missing.json")}, io.Discard, io.Discard); code != exitUsage {
		t.Fatalf("missing key file: exit %d, want %d", code, exitUsage)
	}
	if code := run([]string{"keys", "new"}, io.Discard, io.Discard); code != exitUsage {
		t.Fatalf("keys new without --out: exit %d, want %d", code, exitUsage)
	}
}

func TestKeysHelpHasExamples(t *testing.T) {
	t.Parallel()
	for _, sub := range []string{"new", "show", "import"} {
		out, _, err := runLedger(t, "", "keys", sub, "--help")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"Examples:", "ledger keys " + sub, "Exit codes:", "--json"} {
			if !strings.Contains(out, want) {
				t.Errorf("keys %s --help lacks %q", sub, want)
			}
		}
	}
}

// TestKeysOutIsAFile: an --out that is a directory was refused as an
// existing file "(pass --force to replace it)", the same with --force;
// an empty --out failed with "open : no such file". Both are bad usage
// naming --out.
func TestKeysOutIsAFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"keys", "new", "--out", dir}, "--out " + dir + ": is a directory"},
		{[]string{"keys", "new", "--out", dir, "--force"}, "--out " + dir + ": is a directory"},
		{[]string{"keys", "import", "--uri", "//Alice", "--out", dir, "--force"}, "--out " + dir + ": is a directory"},
		{[]string{"keys", "new", "--out", ""}, "--out: "},
	} {
		_, errs, err := runLedger(t, "", tc.args...)
		if !usageExit(err) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "--force to") {
			t.Errorf("%v: %v (%s); want exit 2 with %q", tc.args, err, errs, tc.want)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("files left in %s: %v", dir, left)
	}
}

// TestKeysImportRefusesURIPassword: a password (///...) turns a
// development URI into a secret, which was taken as a flag value and then
// printed in the "anyone can sign" warning. It is refused, unquoted.
func TestKeysImportRefusesURIPassword(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "hotkey.json")
	const password = "correct-horse-7"
	for _, uri := range []string{"//Alice///" + password, "//validator//0///" + password, "///" + password} {
		stdout, stderr, err := runLedger(t, "", "keys", "import", "--uri", uri, "--out", out)
		if !usageExit(err) || !strings.Contains(err.Error(), "password") {
			t.Fatalf("--uri %s: error %v, want an exit-2 error about the password", uri, err)
		}
		if strings.Contains(stdout+stderr+err.Error(), password) {
			t.Fatalf("--uri %s: the password was printed: %q %q %v", uri, stdout, stderr, err)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("--uri %s: a key file was written", uri)
		}
	}
}

// TestKeysForceNotFromEnvironment: LEDGER_FORCE=true replaced the only
// copy of a secret without --force on the command line, and said it had
// written a new file. A variable never sets --force; the flag itself does,
// and then the command says it replaced the file.
func TestKeysForceNotFromEnvironment(t *testing.T) {
	t.Setenv("LEDGER_FORCE", "true")
	path := filepath.Join(t.TempDir(), "hotkey.json")
	if code, _, errs := ledgerRun(t, "keys", "new", "--out", path); code != exitOK || strings.Contains(errs, "replaced") {
		t.Fatalf("first keys new: exit %d: %s", code, errs)
	}
	before, _ := os.ReadFile(path)
	for _, args := range [][]string{
		{"keys", "new", "--out", path},
		{"keys", "import", "--uri", "//Alice", "--out", path},
	} {
		code, _, errs := ledgerRun(t, args...)
		if code != exitUsage || !strings.Contains(errs, "--force") {
			t.Fatalf("LEDGER_FORCE=true ledger %v: exit %d: %s; want exit 2 suggesting --force", args, code, errs)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
			t.Fatalf("LEDGER_FORCE=true ledger %v replaced the key file", args)
		}
	}
	for _, args := range [][]string{
		{"keys", "new", "--out", path, "--force"},
		{"keys", "import", "--uri", "//Alice", "--out", path, "--force"},
	} {
		code, _, errs := ledgerRun(t, args...)
		if code != exitOK || !strings.Contains(errs, "replaced the key file "+path) {
			t.Fatalf("ledger %v: exit %d: %q; want it to say it replaced the file", args, code, errs)
		}
	}
	if after, _ := os.ReadFile(path); bytes.Equal(before, after) {
		t.Fatal("--force did not replace the key")
	}
}
