package keys

import (
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixedSeed is 00 01 02 ... 1f, the fixed-seed key of spec/vectors.
func fixedSeed() [32]byte {
	var s [32]byte
	for i := range s {
		s[i] = byte(i)
	}
	return s
}

func fixedKey(t testing.TB) *Hotkey {
	t.Helper()
	k, err := FromSeed(fixedSeed())
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestKeyFileRoundTrip(t *testing.T) {
	t.Parallel()
	k := fixedKey(t)
	data, err := MarshalKeyFile(k)
	if err != nil {
		t.Fatal(err)
	}
	seed := fixedSeed()
	pub := k.Public()
	want := "{\n" +
		"  \"type\": \"sr25519\",\n" +
		"  \"ss58\": \"" + pub.SS58() + "\",\n" +
		"  \"public_key\": \"0x" + hex.EncodeToString(pub[:]) + "\",\n" +
		"  \"secret_seed\": \"0x" + hex.EncodeToString(seed[:]) + "\"\n" +
		"}\n"
	if string(data) != want {
		t.Fatalf("key file:\n%s\nwant:\n%s", data, want)
	}
	back, err := ParseKeyFile(data)
	if err != nil {
		t.Fatal(err)
	}
	if back.Public() != pub {
		t.Fatal("round trip changed the key")
	}
	// Member order and whitespace are free.
	compact := `{"secret_seed":"0x` + hex.EncodeToString(seed[:]) + `","public_key":"0x` + hex.EncodeToString(pub[:]) +
		`","type":"sr25519","ss58":"` + pub.SS58() + `"}`
	if _, err := ParseKeyFile([]byte(compact)); err != nil {
		t.Fatalf("compact form rejected: %v", err)
	}
}

// malformedKeyFiles are variations on a valid key file whose secret is
// secretHex; each must be rejected with a message containing want.
func malformedKeyFiles(t testing.TB) (secretHex string, cases []struct{ name, data, want string }) {
	k := fixedKey(t)
	bob, _ := FromURI("//Bob")
	good := func(typ, ss58, pub, seed string) string {
		return `{"type":"` + typ + `","ss58":"` + ss58 + `","public_key":"` + pub + `","secret_seed":"` + seed + `"}`
	}
	seed := fixedSeed()
	secretHex = hex.EncodeToString(seed[:])
	p := k.Public()
	pub := "0x" + hex.EncodeToString(p[:])
	bp := bob.Public()
	bobPub := "0x" + hex.EncodeToString(bp[:])
	ss58 := p.SS58()
	s := "0x" + secretHex
	cases = []struct{ name, data, want string }{
		{"empty", "", "not a JSON object"},
		{"array", "[" + good(KeyType, ss58, pub, s) + "]", "not a JSON object"},
		{"truncated", good(KeyType, ss58, pub, s)[:90], "unexpected end"},
		{"bad escape inside the secret", good(KeyType, ss58, pub, s[:10]+`\q`+s[10:]), "not valid JSON"},
		{"bare secret", strings.Replace(good(KeyType, ss58, pub, s), `"0x00`, `0x00`, 1), "not a string"},
		{"trailing data", good(KeyType, ss58, pub, s) + `{}`, "data after"},
		{"missing seed", `{"type":"sr25519","ss58":"` + ss58 + `","public_key":"` + pub + `"}`, `"secret_seed" is missing`},
		{"unknown member", strings.Replace(good(KeyType, ss58, pub, s), `"ss58"`, `"ss59"`, 1), "unknown member"},
		{"secret as member name", `{"` + secretHex + `":1}`, "unknown member"},
		{"repeated member", strings.Replace(good(KeyType, ss58, pub, s), `}`, `,"type":"sr25519"}`, 1), "appears twice"},
		{"null", strings.Replace(good(KeyType, ss58, pub, s), `"`+s+`"`, `null`, 1), "is null"},
		{"number", strings.Replace(good(KeyType, ss58, pub, s), `"sr25519"`, `25519`, 1), "not a string"},
		{"other type", good("ed25519", ss58, pub, s), "type is not"},
		{"seed without 0x", good(KeyType, ss58, pub, secretHex), "secret_seed is not 0x"},
		{"upper-case seed", good(KeyType, ss58, pub, "0x"+strings.ToUpper(secretHex)), "secret_seed is not 0x"},
		{"short seed", good(KeyType, ss58, pub, s[:64]), "secret_seed is not 0x"},
		{"non-hex seed", good(KeyType, ss58, pub, s[:60]+"zzzzzz"), "secret_seed is not 0x"},
		{"bad public key", good(KeyType, ss58, pub[:60], s), "public_key is not 0x"},
		{"secret in public_key", good(KeyType, ss58, s, s), "public_key is not the public key"},
		{"other public key", good(KeyType, ss58, bobPub, s), "public_key is not the public key"},
		{"other address", good(KeyType, bob.Public().SS58(), pub, s), "ss58 is not the address"},
		{"secret in ss58", good(KeyType, s, pub, s), "ss58 is not the address"},
		{"btcli wallet file", `{"accountId":"` + pub + `","publicKey":"` + pub + `","secretPhrase":null,"secretSeed":"` + s + `","ss58Address":"` + ss58 + `"}`,
			"unknown member at byte 12 (it is a btcli wallet file: import it with ledger keys import --btcli)"},
	}
	return secretHex, cases
}

func TestKeyFileRejects(t *testing.T) {
	t.Parallel()
	secretHex, cases := malformedKeyFiles(t)
	for _, c := range cases {
		_, err := ParseKeyFile([]byte(c.data))
		if !errors.Is(err, ErrKeyFile) {
			t.Errorf("%s: error %v, want ErrKeyFile", c.name, err)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s: error %q does not say %q", c.name, msg, c.want)
		}
		if leaked := leak([]byte(c.data), msg); leaked != "" {
			t.Errorf("%s: error %q repeats input %q", c.name, msg, leaked)
		}
		for i := 0; i+8 <= len(secretHex); i++ {
			if strings.Contains(strings.ToLower(msg), secretHex[i:i+8]) {
				t.Fatalf("%s: error %q contains part of the secret", c.name, msg)
			}
		}
	}
}

// leak returns a 16-byte run of input that msg repeats, or "". Member names
// (at most 14 bytes with their quotes) may be repeated; values never are.
func leak(input []byte, msg string) string {
	const window = 16
	for i := 0; i+window <= len(input); i++ {
		if strings.Contains(msg, string(input[i:i+window])) {
			return string(input[i : i+window])
		}
	}
	return ""
}

func TestWriteReadKeyFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "hotkey.json")
	k := fixedKey(t)
	if err := WriteKeyFile(path, k, false); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Fatalf("key file mode %04o, want 0600", perm)
	}
	if dinfo, _ := os.Stat(filepath.Dir(path)); dinfo.Mode().Perm() != 0o700 {
		t.Fatalf("created directory mode %04o, want 0700", dinfo.Mode().Perm())
	}
	back, err := ReadKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Public() != k.Public() {
		t.Fatal("read back another key")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want only the key file (temporary file left behind?)", len(entries))
	}

	other, _ := Generate()
	err = WriteKeyFile(path, other, false)
	if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("overwrite without permission: %v", err)
	}
	if back, _ := ReadKeyFile(path); back.Public() != k.Public() {
		t.Fatal("existing key file was replaced")
	}
	if err := WriteKeyFile(path, other, true); err != nil {
		t.Fatal(err)
	}
	if back, _ := ReadKeyFile(path); back.Public() != other.Public() {
		t.Fatal("overwrite did not replace the key")
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Fatalf("overwritten key file mode %04o, want 0600", info.Mode().Perm())
	}
}

func TestReadKeyFileRejectsOpenModes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "hotkey.json")
	if err := WriteKeyFile(path, fixedKey(t), false); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o620, 0o602, 0o660} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		_, err := ReadKeyFile(path)
		if !errors.Is(err, ErrInsecureKeyFile) {
			t.Fatalf("mode %04o: error %v, want ErrInsecureKeyFile", mode, err)
		}
		msg := err.Error()
		if !strings.Contains(msg, "mode 0"+octal(mode)) || !strings.Contains(msg, "chmod 600 "+path) {
			t.Fatalf("mode %04o: message %q should give the mode and the chmod fix", mode, msg)
		}
	}
	if err := os.Chmod(path, 0o400); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadKeyFile(path); err != nil {
		t.Fatalf("read-only by owner (0400) should load: %v", err)
	}
}

func octal(m os.FileMode) string {
	const digits = "01234567"
	p := uint32(m.Perm())
	return string([]byte{digits[p>>6&7], digits[p>>3&7], digits[p&7]})
}

func TestReadKeyFileErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := ReadKeyFile(filepath.Join(dir, "missing.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadKeyFile(filepath.Join(dir, "d")); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("directory: %v", err)
	}
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, make([]byte, maxKeyFileSize+1), 0o600)
	if _, err := ReadKeyFile(big); !errors.Is(err, ErrKeyFile) {
		t.Fatalf("oversized file: %v", err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"type":"sr25519"}`), 0o600)
	if _, err := ReadKeyFile(bad); !errors.Is(err, ErrKeyFile) || !strings.Contains(err.Error(), bad) {
		t.Fatalf("malformed file error should wrap ErrKeyFile and name the file: %v", err)
	}
}

func TestSoftDerivedKeyHasNoKeyFile(t *testing.T) {
	t.Parallel()
	k, err := FromURI("//Alice/soft")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := MarshalKeyFile(k); !errors.Is(err, ErrNoSeed) {
		t.Fatalf("soft-derived key: %v, want ErrNoSeed", err)
	}
	path := filepath.Join(t.TempDir(), "hotkey.json")
	if err := WriteKeyFile(path, k, false); !errors.Is(err, ErrNoSeed) {
		t.Fatalf("write soft-derived key: %v, want ErrNoSeed", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("a file was written for a key without seed")
	}
}
