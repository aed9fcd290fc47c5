package subtensor

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"golang.org/x/crypto/blake2b"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/chain/scale"
	"github.com/affine-ledger/ledger/keys"
)

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const aliceHex = "d43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d"

var alice = keys.PublicKey(func() []byte { b, _ := hex.DecodeString(aliceHex); return b }())

// Storage keys published in Substrate's documentation and tooling:
// System.Account's prefix, Alice's System.Account key (Blake2_128Concat;
// Python's hashlib.blake2b(alice, digest_size=16) gives the same
// de1e86a9... prefix), Sudo.Key and Timestamp.Now.
func TestStorageKeyVectors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		got  []byte
		want string
	}{
		{StorageKey("System", "Account"), "26aa394eea5630e07c48ae0c9558cef7b99d880ec681799c0cf30e8886371da9"},
		{StorageKey("System", "Account", Blake2128Concat(alice[:])), "26aa394eea5630e07c48ae0c9558cef7b99d880ec681799c0cf30e8886371da9" + "de1e86a9a8c739864cf3cc5ec2bea59f" + aliceHex},
		{StorageKey("Sudo", "Key"), "5c0d1176a568c1f92944340dbfed9e9c530ebca703c85910e7164cb7d1c9e47b"},
		{StorageKey("Timestamp", "Now"), "f0c365c3cf59d671eb72da0e7a4113c49f1f0515f462cdcf84e0f1d6045dfcbb"},
	}
	for i, c := range cases {
		if got := hex.EncodeToString(c.got); got != c.want {
			t.Errorf("case %d: %s\nwant    %s", i, got, c.want)
		}
	}
	// Map keys hashed with Identity and Twox64Concat append the encoding.
	k := keyCommitment(7, alice)
	if !bytes.HasSuffix(k, append(Twox64Concat(alice[:])[:8:8], alice[:]...)) || !bytes.Equal(k[32:34], []byte{7, 0}) || len(k) != 32+2+8+32 {
		t.Fatalf("CommitmentOf key %x", k)
	}
	if k := keyRevealPeriod(1); len(k) != 32+8+2 || !bytes.HasSuffix(k, []byte{1, 0}) {
		t.Fatalf("RevealPeriodEpochs key %x", k)
	}
}

// Call encodings with subtensor spec 425's indices (construct_runtime!:
// SubtensorModule = 7, Commitments = 18; call_index: set_weights 0,
// commit_weights 96, reveal_weights 97, set_commitment 0), written out by
// hand from the SCALE rules.
func TestCallVectors(t *testing.T) {
	t.Parallel()
	sm := func(call uint8) CallIndex { return CallIndex{7, call} }
	got, err := SetCommitmentCall(CallIndex{18, 0}, 1, []chain.Data{chain.Raw([]byte("lm1:a@b")), chain.Sha256Field([32]byte{0xee})})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		got  []byte
		want string
	}{
		{got, "1200" + "0100" + "08" + "08" + hex.EncodeToString([]byte("lm1:a@b")) + "83ee" + strings.Repeat("00", 31)},
		{SetWeightsCall(sm(0), 300, chain.Weights{UIDs: []uint16{0, 5}, Values: []uint16{65535, 1}, VersionKey: 2}),
			"0700" + "2c01" + "0800000500" + "08ffff0100" + "0200000000000000"},
		{CommitWeightsCall(sm(96), 1, chain.Hash{0xab}), "0760" + "0100" + "ab" + strings.Repeat("00", 31)},
		{RevealWeightsCall(sm(97), 1, chain.Reveal{Weights: chain.Weights{UIDs: []uint16{3}, Values: []uint16{9}, VersionKey: 1}, Salt: []uint16{1, 2}}),
			"0761" + "0100" + "040300" + "040900" + "0801000200" + "0100000000000000"},
	}
	for i, c := range cases {
		if h := hex.EncodeToString(c.got); h != c.want {
			t.Errorf("case %d:\n got %s\nwant %s", i, h, c.want)
		}
	}
}

// Substrate's own era tests: mortal(64, 42) and mortal(32768, 20000).
func TestEraVectors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		era  Era
		want string
	}{
		{Era{}, "00"},
		{Era{Period: 64, Current: 42}, "a502"},
		{Era{Period: 32768, Current: 20000}, "4e9c"},
		{Era{Period: 5, Current: 10}, "2200"}, // period 8, phase 2: 2 | 2<<4
	} {
		var e scale.Encoder
		c.era.Encode(&e)
		if got := hex.EncodeToString(e.Bytes()); got != c.want {
			t.Errorf("%+v: %s want %s", c.era, got, c.want)
		}
	}
}

// spec425 are subtensor spec 425's transaction extensions in order
// (runtime/src/lib.rs TxExtension).
var spec425 = []string{
	"CheckNonZeroSender", "CheckSpecVersion", "CheckTxVersion", "CheckGenesis", "CheckMortality",
	"CheckNonce", "CheckWeight", "ChargeTransactionPaymentWrapper", "SudoTransactionExtension",
	"CheckShieldedTxValidity", "SubtensorTransactionExtension", "DrandPriority", "CheckMetadataHash",
}

func TestSigningPayloadAndExtrinsic(t *testing.T) {
	t.Parallel()
	k, err := keys.FromURI("//Alice")
	if err != nil {
		t.Fatal(err)
	}
	p := SignParams{
		Era: Era{Period: 64, Current: 42}, Nonce: 5, Tip: 0, SpecVersion: 425, TransactionVersion: 1,
		Genesis: chain.Hash{0x11}, EraBlock: chain.Hash{0x22},
	}
	call := CommitWeightsCall(CallIndex{7, 96}, 1, chain.Hash{0xab})
	// extra: era a502, compact nonce 14, compact tip 00, metadata mode 00;
	// additional: spec a9010000, tx 01000000, genesis, era block, None 00.
	extra := "a502" + "14" + "00" + "00"
	add := "a9010000" + "01000000" + "11" + strings.Repeat("00", 31) + "22" + strings.Repeat("00", 31) + "00"
	payload, gotExtra, err := SigningPayload(spec425, call, p)
	if err != nil {
		t.Fatal(err)
	}
	if h := hex.EncodeToString(payload); h != hex.EncodeToString(call)+extra+add {
		t.Fatalf("payload\n got %s\nwant %s", h, hex.EncodeToString(call)+extra+add)
	}
	if hex.EncodeToString(gotExtra) != extra {
		t.Fatalf("extra %x", gotExtra)
	}

	ext, err := SignExtrinsic(k, spec425, call, p)
	if err != nil {
		t.Fatal(err)
	}
	d := scale.NewDecoder(ext)
	body := d.VecU8(1<<20, "extrinsic")
	if d.Finish() != nil || len(body) != 1+1+32+1+64+len(gotExtra)+len(call) {
		t.Fatalf("extrinsic length: %x", ext)
	}
	if body[0] != 0x84 || body[1] != 0x00 || !bytes.Equal(body[2:34], mustHex(t, aliceHex)) || body[34] != 0x01 {
		t.Fatalf("extrinsic header %x", body[:35])
	}
	var sig keys.Signature
	copy(sig[:], body[35:99])
	if !keys.Verify(k.Public(), payload, sig) {
		t.Fatal("the extrinsic's signature does not verify over the payload")
	}
	if !bytes.Equal(body[99:], append(gotExtra, call...)) {
		t.Fatal("extrinsic tail is not extra || call")
	}

	// A payload over 256 bytes is signed through its Blake2b-256.
	long, _ := SetCommitmentCall(CallIndex{18, 0}, 1, []chain.Data{chain.Raw(make([]byte, 128)), chain.Raw(make([]byte, 128))})
	payload, _, _ = SigningPayload(spec425, long, p)
	full := append(append(append([]byte(nil), long...), mustHex(t, extra)...), mustHex(t, add)...)
	if want := blake2b.Sum256(full); !bytes.Equal(payload, want[:]) {
		t.Fatal("long payload is not hashed")
	}
	if _, _, err := SigningPayload([]string{"CheckNonce", "SomethingNew"}, call, p); err == nil {
		t.Fatal("unknown extension accepted")
	}
}

func TestDecodeStorageValues(t *testing.T) {
	t.Parallel()
	// Registration{deposit u64, block u32, info{fields}}
	reg := mustHex(t, "e803000000000000"+"39300000"+"04"+"0261"+"62")
	if _, _, err := DecodeRegistration(reg); err == nil {
		t.Fatal("trailing byte accepted")
	}
	block, fields, err := DecodeRegistration(reg[:len(reg)-1])
	if err != nil || block != 12345 || len(fields) != 1 || string(fields[0].Bytes) != "a" {
		t.Fatalf("registration: %d %+v %v", block, fields, err)
	}
	uids, values, err := decodeWeights(mustHex(t, "08"+"0100ffff"+"02000100"))
	if err != nil || uids[1] != 2 || values[0] != 65535 {
		t.Fatalf("weights %v %v %v", uids, values, err)
	}
	if b, err := decodeBools(mustHex(t, "0c010001")); err != nil || !b[0] || b[1] || !b[2] {
		t.Fatalf("bools %v %v", b, err)
	}
	if _, err := decodeBools(mustHex(t, "0402")); err == nil {
		t.Fatal("bool byte 2 accepted")
	}
}

func TestInclusionStatus(t *testing.T) {
	t.Parallel()
	h := "0x" + strings.Repeat("ab", 32)
	cases := []struct {
		in   string
		done bool
		err  bool
	}{
		{`"ready"`, false, false},
		{`{"broadcast":["peer"]}`, false, false},
		{`{"inBlock":"` + h + `"}`, true, false},
		{`{"finalized":"` + h + `"}`, true, false},
		{`"invalid"`, false, true},
		{`"dropped"`, false, true},
		{`{"usurped":"` + h + `"}`, false, true},
		{`{"inBlock":"0x12"}`, false, true},
		{`[1]`, false, true},
	}
	for _, c := range cases {
		got, done, err := inclusion(json.RawMessage(c.in))
		if done != c.done || (err != nil) != c.err || (done && got != chain.Hash{0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab}) {
			t.Errorf("%s: %v %v %v", c.in, got, done, err)
		}
	}
}

// FuzzDecodeRegistration: storage values from a node never panic the
// decoder.
func FuzzDecodeRegistration(f *testing.F) {
	f.Add(mustHex(f, "e803000000000000"+"39300000"+"04"+"0261"))
	f.Fuzz(func(t *testing.T, data []byte) {
		DecodeRegistration(data)
		decodeWeights(data)
		decodeBools(data)
		decodeU16s(data)
		inclusion(json.RawMessage(data))
	})
}
