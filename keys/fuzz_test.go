package keys

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// FuzzParseKeyFile: no panic; an accepted file round-trips; a rejected one
// gets an ErrKeyFile error that repeats no 16-byte run of the input, so no
// secret (64 hex digits) can leak through it.
func FuzzParseKeyFile(f *testing.F) {
	good, err := MarshalKeyFile(fixedKey(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	_, cases := malformedKeyFiles(f)
	for _, c := range cases {
		f.Add([]byte(c.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := ParseKeyFile(data)
		if err != nil {
			if !errors.Is(err, ErrKeyFile) {
				t.Fatalf("error does not wrap ErrKeyFile: %v", err)
			}
			if leaked := leak(data, err.Error()); leaked != "" {
				t.Fatalf("error %q repeats input %q", err, leaked)
			}
			return
		}
		out, err := MarshalKeyFile(k)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseKeyFile(out)
		if err != nil || back.Public() != k.Public() {
			t.Fatalf("accepted key does not round-trip: %v", err)
		}
	})
}

// FuzzParseBtcli: no panic; errors wrap ErrBtcliFile and repeat no 16-byte
// run of the input; an accepted file's key agrees with its ss58Address.
func FuzzParseBtcli(f *testing.F) {
	f.Add([]byte(btcliDev))
	f.Add([]byte(`{"secretSeed": "0x` + devSeedHex + `"}`))
	f.Add([]byte(`{"secretPhrase": "` + devPhrase + `", "ss58Address": null}`))
	f.Add([]byte(`$NACL`))
	f.Add([]byte(`{"accountId": 1, "x": [{"y": null}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := ParseBtcli(data)
		if err != nil {
			if !errors.Is(err, ErrBtcliFile) {
				t.Fatalf("error does not wrap ErrBtcliFile: %v", err)
			}
			if leaked := leak(data, err.Error()); leaked != "" {
				t.Fatalf("error %q repeats input %q", err, leaked)
			}
			return
		}
		if strings.Contains(string(data), `"ss58Address"`) && strings.Contains(string(data), devAddress) && k.Public().SS58() != devAddress {
			t.Fatalf("accepted %s for a file naming %s", k.Public().SS58(), devAddress)
		}
	})
}

// mnemonicErrors are the only messages a mnemonic error may carry: they
// hold counts and positions, never a word.
var mnemonicErrors = regexp.MustCompile(`^bad mnemonic: (\d+ words, want 12, 15, 18, 21 or 24|word \d+ is not in the BIP39 English word list|the checksum does not match \(a word is wrong or out of order\))$`)

// FuzzMnemonic: no panic; an error is one of the fixed messages (so it
// never holds the password either); the empty password is no password.
func FuzzMnemonic(f *testing.F) {
	f.Add(devPhrase, "")
	f.Add(devPhrase, "password")
	f.Add("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about", "Substrate")
	f.Add("zoo zoo zoo", "")
	f.Fuzz(func(t *testing.T, phrase, password string) {
		seed, err := MnemonicPasswordSeed(phrase, password)
		if err != nil && (!errors.Is(err, ErrBadMnemonic) || !mnemonicErrors.MatchString(err.Error())) {
			t.Fatalf("unexpected error %q", err)
		}
		if password != "" {
			return
		}
		plain, perr := MnemonicSeed(phrase)
		if (err == nil) != (perr == nil) || plain != seed {
			t.Fatalf("MnemonicSeed and the empty password differ: %v, %v", err, perr)
		}
	})
}
