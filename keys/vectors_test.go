package keys

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mr-tron/base58"
	"golang.org/x/crypto/blake2b"
)

// vectorsPath is spec/vectors/signatures.json (spec/signatures.md).
var vectorsPath = filepath.Join("..", "spec", "vectors", "signatures.json")

type vectorFile struct {
	Note           string      `json:"note"`
	SS58Prefix     int         `json:"ss58_prefix"`
	SigningContext string      `json:"signing_context"`
	Keys           []keyVector `json:"keys"`
	Signatures     []sigVector `json:"signatures"`
}

// keyVector: mnemonic or uri (if any) -> secret_seed -> public_key -> ss58.
type keyVector struct {
	Name         string `json:"name"`
	Mnemonic     string `json:"mnemonic,omitempty"`
	URI          string `json:"uri,omitempty"`
	SecretSeed   string `json:"secret_seed"`
	PublicKey    string `json:"public_key"`
	SS58Checksum string `json:"ss58_checksum"`
	SS58         string `json:"ss58"`
}

// sigVector: Verify(public_key, message, signature) must equal valid.
type sigVector struct {
	Name      string `json:"name"`
	Source    string `json:"source"`
	PublicKey string `json:"public_key"`
	Message   string `json:"message"`
	Signature string `json:"signature"`
	Valid     bool   `json:"valid"`
}

const (
	// aliceDeadbeef is //Alice's signature of de ad be ef made outside this
	// code base: the vector go-subkey's own tests carry.
	aliceDeadbeef = "dc7cf771e1989a5c3cddca30ec5efaeff9a5c14a36c3c032510019e7144e0375f9207ef6745390ca3dc76b307b26f60125c942e2b7fb23100cc79402a12dde8b"
	// vectorMessage is what the fixed-seed key signs.
	vectorMessage = "ledger signatures vector v1"
)

// deterministicVectors is everything in the file that the code regenerates
// exactly: the key derivations and the external signature.
func deterministicVectors(t *testing.T) vectorFile {
	t.Helper()
	v := vectorFile{
		Note: "Checked by keys.TestSignatureVectors (spec/signatures.md). Byte strings are lower-case hex without 0x. " +
			"Keys: mnemonic or dev URI -> secret_seed (32-byte mini secret key) -> public_key -> ss58 = base58(2a || public_key || ss58_checksum). " +
			"Signatures: sr25519 with signing context \"substrate\" over the raw message; each must verify (valid) or not. " +
			"sr25519 signatures are randomized: an implementation verifies these, it cannot regenerate them.",
		SS58Prefix:     SS58Prefix,
		SigningContext: "substrate",
	}
	add := func(name, mnemonic, uri string, k *Hotkey) {
		seed, ok := k.Seed()
		if !ok {
			t.Fatalf("%s has no seed", name)
		}
		pub := k.Public()
		sum := ss58Checksum(pub)
		v.Keys = append(v.Keys, keyVector{
			Name: name, Mnemonic: mnemonic, URI: uri,
			SecretSeed:   hex.EncodeToString(seed[:]),
			PublicKey:    hex.EncodeToString(pub[:]),
			SS58Checksum: hex.EncodeToString(sum[:]),
			SS58:         pub.SS58(),
		})
	}
	dev, err := FromMnemonic(devPhrase)
	if err != nil {
		t.Fatal(err)
	}
	add("substrate dev phrase", devPhrase, "", dev)
	for _, uri := range []string{"//Alice", "//Bob"} {
		k, err := FromURI(uri)
		if err != nil {
			t.Fatal(err)
		}
		add(uri, "", uri, k)
	}
	add("fixed seed 00..1f", "", "", fixedKey(t))

	alice, _ := FromURI("//Alice")
	alicePub := alice.Public()
	v.Signatures = append(v.Signatures, sigVector{
		Name: "//Alice signs deadbeef", Source: "external: go-subkey's test vector",
		PublicKey: hex.EncodeToString(alicePub[:]), Message: "deadbeef", Signature: aliceDeadbeef, Valid: true,
	})
	return v
}

// ss58Checksum recomputes the checksum with blake2b directly, apart from
// go-subkey: blake2b-512("SS58PRE" || 0x2a || public key)[:2].
func ss58Checksum(pub PublicKey) [2]byte {
	h := blake2b.Sum512(append([]byte("SS58PRE\x2a"), pub[:]...))
	return [2]byte{h[0], h[1]}
}

// madeSignatures are the signatures our code made with the fixed-seed key;
// an update keeps the ones already in the file when they still verify.
func madeSignatures(t *testing.T, old []sigVector) []sigVector {
	t.Helper()
	k := fixedKey(t)
	pub := k.Public()
	msg := []byte(vectorMessage)
	wrapped := append(append([]byte("<Bytes>"), msg...), "</Bytes>"...)
	sign := func(name string, signed []byte) string {
		for _, o := range old {
			if o.Name == name {
				if sig, err := hex.DecodeString(o.Signature); err == nil && len(sig) == SignatureSize && Verify(pub, signed, Signature(sig)) {
					return o.Signature
				}
			}
		}
		sig, err := k.Sign(signed)
		if err != nil {
			t.Fatal(err)
		}
		return hex.EncodeToString(sig[:])
	}
	h := hex.EncodeToString
	wrappedSig := sign("fixed seed signs <Bytes>message</Bytes>", wrapped)
	return []sigVector{
		{Name: "fixed seed signs message", Source: "made by this code", PublicKey: h(pub[:]), Message: h(msg), Signature: sign("fixed seed signs message", msg), Valid: true},
		{Name: "fixed seed signs empty message", Source: "made by this code", PublicKey: h(pub[:]), Message: "", Signature: sign("fixed seed signs empty message", nil), Valid: true},
		{Name: "fixed seed signs <Bytes>message</Bytes>", Source: "made by this code", PublicKey: h(pub[:]), Message: h(wrapped), Signature: wrappedSig, Valid: true},
		{Name: "the <Bytes>-wrapped signature does not verify for the bare message", Source: "made by this code", PublicKey: h(pub[:]), Message: h(msg), Signature: wrappedSig, Valid: false},
	}
}

func TestSignatureVectors(t *testing.T) {
	want := deterministicVectors(t)
	data, err := os.ReadFile(vectorsPath)
	if err != nil && os.Getenv("LEDGER_UPDATE_VECTORS") != "1" {
		t.Fatalf("read vectors (run `make vectors` once to create them): %v", err)
	}
	var file vectorFile
	if err == nil {
		if err := json.Unmarshal(data, &file); err != nil {
			t.Fatalf("%s: %v", vectorsPath, err)
		}
	}
	if os.Getenv("LEDGER_UPDATE_VECTORS") == "1" {
		want.Signatures = append(want.Signatures, madeSignatures(t, file.Signatures)...)
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(want); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(vectorsPath, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		file = want
	}

	// The deterministic part regenerates exactly.
	got := file
	got.Signatures = nil
	det := want
	det.Signatures = nil
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(det)
	if !bytes.Equal(a, b) {
		t.Fatalf("%s: header or key derivations differ from what this code computes:\nfile: %s\ncode: %s", vectorsPath, a, b)
	}
	if len(file.Signatures) < 5 || file.Signatures[0] != want.Signatures[0] {
		t.Fatalf("%s: the external //Alice signature is missing or altered", vectorsPath)
	}
	for _, k := range file.Keys {
		checkKeyVector(t, k)
	}
	for _, s := range file.Signatures {
		checkSigVector(t, s)
	}
}

// checkKeyVector re-derives one key vector step by step, encoding the
// address with a second base58 implementation.
func checkKeyVector(t *testing.T, v keyVector) {
	t.Helper()
	seed, err := hex.DecodeString(v.SecretSeed)
	if err != nil || len(seed) != 32 {
		t.Fatalf("%s: bad secret_seed", v.Name)
	}
	if v.Mnemonic != "" {
		s, err := MnemonicSeed(v.Mnemonic)
		if err != nil || !bytes.Equal(s[:], seed) {
			t.Errorf("%s: mnemonic gives another seed (%v)", v.Name, err)
		}
	}
	if v.URI != "" {
		k, err := FromURI(v.URI)
		if err != nil {
			t.Fatal(err)
		}
		if s, _ := k.Seed(); !bytes.Equal(s[:], seed) {
			t.Errorf("%s: URI gives another seed", v.Name)
		}
	}
	k, err := FromSeed([32]byte(seed))
	if err != nil {
		t.Fatal(err)
	}
	pub := k.Public()
	if hex.EncodeToString(pub[:]) != v.PublicKey {
		t.Errorf("%s: seed gives public key %x, file says %s", v.Name, pub[:], v.PublicKey)
	}
	sum := ss58Checksum(pub)
	raw := append(append([]byte{SS58Prefix}, pub[:]...), sum[:]...)
	if hex.EncodeToString(sum[:]) != v.SS58Checksum || base58.Encode(raw) != v.SS58 || pub.SS58() != v.SS58 {
		t.Errorf("%s: address mismatch: file %s (checksum %s), base58 %s, keys %s", v.Name, v.SS58, v.SS58Checksum, base58.Encode(raw), pub.SS58())
	}
	if back, err := ParseSS58(v.SS58); err != nil || back != pub {
		t.Errorf("%s: ParseSS58 does not give the public key back: %v", v.Name, err)
	}
}

// checkSigVector verifies one signature vector, and for a valid one checks
// that flipping any bit of the signature, or one bit of the message or the
// key, makes it fail.
func checkSigVector(t *testing.T, v sigVector) {
	t.Helper()
	pubBytes, err1 := hex.DecodeString(v.PublicKey)
	msg, err2 := hex.DecodeString(v.Message)
	sigBytes, err3 := hex.DecodeString(v.Signature)
	if err1 != nil || err2 != nil || err3 != nil || len(pubBytes) != 32 || len(sigBytes) != SignatureSize {
		t.Fatalf("%s: malformed vector", v.Name)
	}
	pub, sig := PublicKey(pubBytes), Signature(sigBytes)
	if Verify(pub, msg, sig) != v.Valid {
		t.Fatalf("%s: Verify gives %v, want %v", v.Name, !v.Valid, v.Valid)
	}
	if !v.Valid {
		return
	}
	for bit := range SignatureSize * 8 {
		bad := sig
		bad[bit/8] ^= 1 << (bit % 8)
		if Verify(pub, msg, bad) {
			t.Fatalf("%s: verifies with signature bit %d flipped", v.Name, bit)
		}
	}
	if len(msg) > 0 {
		bad := bytes.Clone(msg)
		bad[len(bad)-1] ^= 1
		if Verify(pub, bad, sig) {
			t.Fatalf("%s: verifies for another message", v.Name)
		}
	}
	if Verify(pub, append(bytes.Clone(msg), 0), sig) {
		t.Fatalf("%s: verifies for the message with a byte appended", v.Name)
	}
	otherPub := pub
	otherPub[0] ^= 1
	if Verify(otherPub, msg, sig) {
		t.Fatalf("%s: verifies under another key", v.Name)
	}
}
