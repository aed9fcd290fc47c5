package chain

import (
	"encoding/hex"
	"errors"
	"slices"
	"testing"

	"github.com/affine-ledger/ledger/keys"
)

// alice is //Alice's public key (published with Substrate's dev accounts).
var alice = keys.PublicKey(mustHex32("d43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d"))

func mustHex32(s string) [32]byte {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		panic(s)
	}
	return [32]byte(b)
}

// The preimages are SCALE written out by hand (AccountId32, u16 LE,
// compact-length Vec<u16>s, u64 LE); the hashes come from Python's
// hashlib.blake2b(preimage, digest_size=32), an implementation independent
// of golang.org/x/crypto.
func TestCommitHashVectors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		netuid   uint16
		r        Reveal
		preimage string
		hash     string
	}{
		{
			1, Reveal{Weights: Weights{UIDs: []uint16{0, 1}, Values: []uint16{65535, 32768}}, Salt: []uint16{1, 2, 3, 4, 5, 6, 7, 8}},
			"d43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d" + "0100" + "0800000100" + "08ffff0080" + "2001000200030004000500060007000800" + "0000000000000000",
			"15d1d763685dfce22d8650296059d5767f0932787b33a80c31d996c3d36b6eef",
		},
		{
			64, Reveal{Weights: Weights{UIDs: []uint16{3}, Values: []uint16{65535}, VersionKey: 1000}, Salt: nil},
			"d43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d" + "4000" + "040300" + "04ffff" + "00" + "e803000000000000",
			"64633f2f886a503734d2f1afb843cc4ffb238f9501d463455a34f1579277f833",
		},
	}
	for i, c := range cases {
		if got := hex.EncodeToString(CommitPreimage(alice, c.netuid, c.r)); got != c.preimage {
			t.Errorf("case %d preimage\n got %s\nwant %s", i, got, c.preimage)
		}
		if got := CommitHash(alice, c.netuid, c.r).String(); got != c.hash {
			t.Errorf("case %d hash %s want %s", i, got, c.hash)
		}
	}
}

func TestScaleWeights(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   []uint64
		want []uint16
	}{
		{[]uint64{0, 0}, []uint16{0, 0}},
		{[]uint64{1, 2}, []uint16{32768, 65535}}, // 32767.5 rounds up
		{[]uint64{1, 3}, []uint16{21845, 65535}},
		{[]uint64{2, 3}, []uint16{43690, 65535}},
		{[]uint64{1 << 63, 1<<64 - 1}, []uint16{32768, 65535}},
		{[]uint64{7}, []uint16{65535}},
		{nil, []uint16{}},
	}
	for _, c := range cases {
		if got := ScaleWeights(c.in); !slices.Equal(got, c.want) {
			t.Errorf("ScaleWeights(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestCheckWeights(t *testing.T) {
	t.Parallel()
	cases := []struct {
		w  Weights
		ok bool
	}{
		{Weights{UIDs: []uint16{0, 2}, Values: []uint16{1, 2}}, true},
		{Weights{UIDs: []uint16{0}, Values: []uint16{1, 2}}, false},
		{Weights{}, false},
		{Weights{UIDs: []uint16{1, 1}, Values: []uint16{1, 2}}, false},
		{Weights{UIDs: []uint16{3}, Values: []uint16{1}}, false},
	}
	for i, c := range cases {
		err := CheckWeights(c.w, 3)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrBadWeights)) {
			t.Errorf("case %d: err %v", i, err)
		}
	}
}

func TestNewSalt(t *testing.T) {
	t.Parallel()
	a, err := NewSalt()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewSalt()
	if len(a) != SaltLen || slices.Equal(a, b) {
		t.Fatalf("salts %v %v", a, b)
	}
}
