package keys

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const devPublicHex = "0x46ebddef8cd9bb167dc30878d7113b7e168e6f0646beffd77d69d39bad76b47a"

// btcliDev is a btcli hotkey file of the dev phrase's root key, laid out as
// bittensor-wallet writes it. privateKey is never read.
var btcliDev = `{"accountId": "` + devPublicHex + `", "publicKey": "` + devPublicHex + `", ` +
	`"privateKey": "0x` + strings.Repeat("ab", 64) + `", ` +
	`"secretPhrase": "` + devPhrase + `", "secretSeed": "0x` + devSeedHex + `", ` +
	`"ss58Address": "` + devAddress + `"}`

func btcliWith(t testing.TB, edit func(m map[string]any)) string {
	t.Helper()
	m := map[string]any{
		"accountId": devPublicHex, "publicKey": devPublicHex, "privateKey": "0x" + strings.Repeat("ab", 64),
		"secretPhrase": devPhrase, "secretSeed": "0x" + devSeedHex, "ss58Address": devAddress,
	}
	edit(m)
	var b strings.Builder
	b.WriteString("{")
	first := true
	for _, name := range append(append([]string{}, btcliFields...), "extra") {
		v, ok := m[name]
		if !ok {
			continue
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.WriteString(`"` + name + `": `)
		switch v := v.(type) {
		case nil:
			b.WriteString("null")
		case string:
			b.WriteString(`"` + v + `"`)
		default:
			b.WriteString(v.(rawJSON).s)
		}
	}
	b.WriteString("}")
	return b.String()
}

type rawJSON struct{ s string }

func TestParseBtcliAccepts(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"full file": btcliDev,
		"seed only": btcliWith(t, func(m map[string]any) { delete(m, "secretPhrase") }),
		"phrase only": btcliWith(t, func(m map[string]any) {
			delete(m, "secretSeed")
			m["privateKey"] = nil
		}),
		"phrase, seed null": btcliWith(t, func(m map[string]any) { m["secretSeed"] = nil }),
		"no public fields": btcliWith(t, func(m map[string]any) {
			delete(m, "accountId")
			delete(m, "publicKey")
			delete(m, "ss58Address")
		}),
		"seed without 0x, upper case": btcliWith(t, func(m map[string]any) { m["secretSeed"] = strings.ToUpper(devSeedHex) }),
		"extra members":               btcliWith(t, func(m map[string]any) { m["extra"] = rawJSON{`{"nested": [1, 2.5, true]}`} }),
	}
	for name, data := range cases {
		k, err := ParseBtcli([]byte(data))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := k.Public().SS58(); got != devAddress {
			t.Errorf("%s: address %s, want %s", name, got, devAddress)
		}
		if seed, _ := k.Seed(); seed != mustSeed(t) {
			t.Errorf("%s: imported seed differs", name)
		}
	}
}

func mustSeed(t testing.TB) [32]byte {
	s, ok := looseHex32(devSeedHex)
	if !ok {
		t.Fatal("bad devSeedHex")
	}
	return s
}

func TestParseBtcliRejects(t *testing.T) {
	t.Parallel()
	alice, _ := FromURI("//Alice")
	aliceSeed, _ := alice.Seed()
	aliceSeedHex := "0x" + hexOf(aliceSeed[:])
	alicePub := alice.Public()
	cases := []struct{ name, data, want string }{
		{"encrypted NaCl", "$NACL" + strings.Repeat("\x01", 40), "encrypted (NaCl)"},
		{"encrypted ansible", "$ANSIBLE_VAULT;1.1;AES256\n3031", "encrypted (Ansible Vault)"},
		{"encrypted legacy", "gAAAAABk", "encrypted (legacy Fernet)"},
		{"not JSON", "hello", "not a JSON object"},
		{"no secret", btcliWith(t, func(m map[string]any) { delete(m, "secretSeed"); delete(m, "secretPhrase") }), "neither secretSeed nor secretPhrase"},
		{"private key only", `{"privateKey": "0x` + strings.Repeat("ab", 64) + `"}`, "neither secretSeed nor secretPhrase"},
		{"seed is a number", btcliWith(t, func(m map[string]any) { m["secretSeed"] = rawJSON{"12345678901234567890"} }), `"secretSeed" is not a string`},
		{"short seed", btcliWith(t, func(m map[string]any) { m["secretSeed"] = "0x" + devSeedHex[:62] }), "secretSeed is not 32 bytes"},
		{"bad phrase", btcliWith(t, func(m map[string]any) {
			delete(m, "secretSeed")
			m["secretPhrase"] = "walk " + devPhrase[:len(devPhrase)-5]
		}), "checksum"},
		{"phrase and seed disagree", btcliWith(t, func(m map[string]any) {
			m["secretSeed"] = aliceSeedHex
			delete(m, "publicKey")
			delete(m, "accountId")
			delete(m, "ss58Address")
		}), "give different keys"},
		{"other address", btcliWith(t, func(m map[string]any) { m["ss58Address"] = alice.Public().SS58() }), "ss58Address is not the address"},
		{"secret as address", btcliWith(t, func(m map[string]any) { m["ss58Address"] = devPhrase }), "ss58Address is not the address"},
		{"other public key", btcliWith(t, func(m map[string]any) { m["publicKey"] = "0x" + hexOf(alicePub[:]) }), "publicKey is not the public key"},
		{"secret as accountId", btcliWith(t, func(m map[string]any) { m["accountId"] = "0x" + devSeedHex }), "accountId is not the public key"},
		{"bad accountId", btcliWith(t, func(m map[string]any) { m["accountId"] = "0x12" }), "accountId is not 32 bytes"},
		{"repeated seed", strings.Replace(btcliDev, `{`, `{"secretSeed": "0x`+devSeedHex+`", `, 1), "appears twice"},
	}
	for _, c := range cases {
		_, err := ParseBtcli([]byte(c.data))
		if !errors.Is(err, ErrBtcliFile) {
			t.Errorf("%s: error %v, want ErrBtcliFile", c.name, err)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s: error %q does not say %q", c.name, msg, c.want)
		}
		if leaked := leak([]byte(c.data), msg); leaked != "" {
			t.Errorf("%s: error %q repeats input %q", c.name, msg, leaked)
		}
		for _, secret := range []string{devSeedHex[:8], "curtain", aliceSeedHex[2:10]} {
			if strings.Contains(strings.ToLower(msg), secret) {
				t.Errorf("%s: error %q contains secret material", c.name, msg)
			}
		}
	}
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

func TestReadBtcliFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "default")
	// btcli files are often 0644; import reads them anyway.
	if err := os.WriteFile(path, []byte(btcliDev), 0o644); err != nil {
		t.Fatal(err)
	}
	k, err := ReadBtcliFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if k.Public().SS58() != devAddress {
		t.Fatalf("imported %s, want %s", k.Public().SS58(), devAddress)
	}
	if _, err := ReadBtcliFile(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("missing file accepted")
	}
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte(`{"ss58Address": "`+devAddress+`"}`), 0o600)
	if _, err := ReadBtcliFile(bad); !errors.Is(err, ErrBtcliFile) || !strings.Contains(err.Error(), bad) {
		t.Fatalf("public-only file: error %v should wrap ErrBtcliFile and name the file", err)
	}
}
