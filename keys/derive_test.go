package keys

import (
	"encoding/hex"
	"testing"
)

// TestURIDerivationMatchesSubstrate derives keys from secret URIs made
// outside this code base: hard and soft junctions, numeric junctions,
// mnemonic passwords and hex seeds, against public keys published by
// Substrate's sp-core tests and dev chain specs, or computed by
// @polkadot/keyring and substrate-interface (which agree).
func TestURIDerivationMatchesSubstrate(t *testing.T) {
	t.Parallel()
	const (
		abandon     = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
		legalWinner = "legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth title"
	)
	cases := []struct {
		name, uri, public string
		seeded            bool // whether the key keeps a 32-byte seed
	}{
		// sp-core sr25519.rs derive_hard_known_pair_should_work.
		{"hard junction", devPhrase + "//Alice", "d43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d", true},
		{"hard junction, default phrase", "//Alice", "d43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d", true},
		// sp-core sr25519.rs derive_soft_known_pair_should_work.
		{"soft junction", devPhrase + "/Alice", "d6c71059dbbe9ad2b0ed3f289738b800836eb425544ce694825285b958ca755e", false},
		// Substrate dev chain specs' Alice stash, 5GNJqTPy...xiZY.
		{"two hard junctions", "//Alice//stash", "be5ddb1579b72e84524fc29e78609e3caf42e85aa118ebfe0b0ad404b5bdd25f", true},
		// sp-core sr25519.rs test_vector_by_string_should_work.
		{"hex seed", "0x9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60", "44a996beb1eef7bdcab976ab6d2ca26104834164ecf28fb375600576fcc6eb0f", true},
		// @polkadot/keyring and substrate-interface.
		{"numeric junction", abandon + "//0", "5244eb2b8a9f975c603485c5a76eeec41fdad88aa6ef204b7c56691940ad1671", true},
		{"numeric junction, default phrase", "//0", "2afba9278e30ccf6a6ceb3a8b6e336b70068f045c666f2e7f4f9cc5f47db8972", true},
		{"no password", abandon, "66933bd1f37070ef87bd1198af3dacceb095237f803f3d32b173e6b425ed7972", true},
		{"password", abandon + "///TREZOR", "baa4036a6b212012c67b91fd47c2e3e64b65bbd538969544c71b2f905227374c", true},
		{"password, 24 words", legalWinner + "///TREZOR", "dc30aeb76d66f32c20fa33e5e8d8894d095e281be79dcce85385f0aae67e702c", true},
	}
	for _, c := range cases {
		k, err := FromURI(c.uri)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		pub := k.Public()
		if got := hex.EncodeToString(pub[:]); got != c.public {
			t.Errorf("%s: public key %s, want %s", c.name, got, c.public)
		}
		if _, ok := k.Seed(); ok != c.seeded {
			t.Errorf("%s: has a seed: %v, want %v", c.name, ok, c.seeded)
		}
	}
	// sp-core sr25519.rs seeded_pair_should_work: a raw 32-byte seed.
	k, err := FromSeed([32]byte([]byte("12345678901234567890123456789012")))
	if err != nil {
		t.Fatal(err)
	}
	if pub := k.Public(); hex.EncodeToString(pub[:]) != "741c08a06f41c596608f6774259bd9043304adfa5d3eea62760bd9be97634d63" {
		t.Errorf("seeded pair: public key %x", pub)
	}
	// FromMnemonic, our own decoding, agrees with the URI path.
	m, err := FromMnemonic(abandon)
	if err != nil {
		t.Fatal(err)
	}
	if pub := m.Public(); hex.EncodeToString(pub[:]) != "66933bd1f37070ef87bd1198af3dacceb095237f803f3d32b173e6b425ed7972" {
		t.Errorf("FromMnemonic(abandon ... about): public key %x", pub)
	}
}
