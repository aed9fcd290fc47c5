package chain

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/chain/scale"
)

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The expected bytes are written by hand from the pallet's Data encoding:
// 0 None; 1+len then the bytes for Raw; 130..133 then 32 bytes for hashes;
// 134 Vec<u8> then u64 for timelock; 135 ResetBonds; 136 Vec<u8> BigRaw.
func TestDataVectors(t *testing.T) {
	t.Parallel()
	h := bytes.Repeat([]byte{0xab}, 32)
	cases := []struct {
		d   Data
		hex string
	}{
		{Data{Kind: DataNone}, "00"},
		{Raw(nil), "01"},
		{Raw([]byte("abc")), "04616263"},
		{Raw(bytes.Repeat([]byte{0x7a}, 128)), "81" + strings.Repeat("7a", 128)},
		{Data{Kind: DataBlakeTwo256, Bytes: h}, "82" + strings.Repeat("ab", 32)},
		{Data{Kind: DataSha256, Bytes: h}, "83" + strings.Repeat("ab", 32)},
		{Data{Kind: DataKeccak256, Bytes: h}, "84" + strings.Repeat("ab", 32)},
		{Data{Kind: DataShaThree256, Bytes: h}, "85" + strings.Repeat("ab", 32)},
		{Data{Kind: DataTimelock, Bytes: []byte{1, 2}, Round: 7}, "86" + "080102" + "0700000000000000"},
		{Data{Kind: DataResetBonds}, "87"},
		{Data{Kind: DataBigRaw, Bytes: []byte{9}}, "88" + "0409"},
	}
	for _, c := range cases {
		if err := c.d.Check(); err != nil {
			t.Fatalf("%s: %v", c.d.Kind, err)
		}
		var e scale.Encoder
		c.d.EncodeSCALE(&e)
		if got := hex.EncodeToString(e.Bytes()); got != c.hex {
			t.Errorf("%s: got %s want %s", c.d.Kind, got, c.hex)
		}
		d := scale.NewDecoder(mustHex(t, c.hex))
		back := DecodeData(d)
		if err := d.Finish(); err != nil || back.Kind != c.d.Kind || !bytes.Equal(back.Bytes, c.d.Bytes) || back.Round != c.d.Round {
			t.Errorf("%s: decoded %+v (%v)", c.d.Kind, back, err)
		}
	}
}

func TestFieldsEncoding(t *testing.T) {
	t.Parallel()
	got, err := EncodeFields([]Data{Raw([]byte("hi")), {Kind: DataNone}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "08" + "036869" + "00"; hex.EncodeToString(got) != want {
		t.Fatalf("got %x want %s", got, want)
	}
	if _, err := EncodeFields(make([]Data, 4)); !errors.Is(err, ErrTooManyFields) {
		t.Fatalf("4 fields: %v", err)
	}
	if _, err := EncodeFields([]Data{Raw(make([]byte, 129))}); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("129-byte raw: %v", err)
	}
	for _, bad := range []string{"10", "0489", "04ff", "0483ab", "0c000000" + "00"} {
		d := scale.NewDecoder(mustHex(t, bad))
		DecodeFields(d)
		if err := d.Finish(); !errors.Is(err, scale.ErrMalformed) {
			t.Errorf("%s: err %v, want ErrMalformed", bad, err)
		}
	}
}

func TestSpaceCost(t *testing.T) {
	t.Parallel()
	h := [32]byte{}
	cases := []struct {
		fields []Data
		want   uint64
	}{
		{nil, 100},
		{[]Data{Raw(make([]byte, 60))}, 100},
		{[]Data{Raw(make([]byte, 80)), Sha256Field(h)}, 112},
		{[]Data{Raw(make([]byte, 128)), Raw(make([]byte, 128)), Sha256Field(h)}, 288},
		{[]Data{{Kind: DataNone}, {Kind: DataResetBonds}}, 100},
	}
	for i, c := range cases {
		if got := SpaceCost(c.fields); got != c.want {
			t.Errorf("case %d: cost %d want %d", i, got, c.want)
		}
	}
}

func TestDataJSON(t *testing.T) {
	t.Parallel()
	in := []Data{Raw([]byte("x")), Sha256Field([32]byte{1}), {Kind: DataTimelock, Bytes: []byte{5}, Round: 3}, {Kind: DataNone}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out []Data
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if out[i].Kind != in[i].Kind || !bytes.Equal(out[i].Bytes, in[i].Bytes) || out[i].Round != in[i].Round {
			t.Fatalf("field %d: %+v != %+v", i, out[i], in[i])
		}
	}
	for _, bad := range []string{`{"kind":"raw","hex":"zz"}`, `{"kind":"nope"}`, `{"kind":"sha256","hex":"00"}`, `{"kind":"none","hex":"00"}`} {
		var d Data
		if err := json.Unmarshal([]byte(bad), &d); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// FuzzDecodeFields: no panic; whatever decodes re-encodes to the same bytes.
func FuzzDecodeFields(f *testing.F) {
	f.Add(mustHex(f, "08036869"+"00"))
	f.Add(mustHex(f, "0c"+"860401"+"0000000000000000"+"87"+"880400"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := scale.NewDecoder(data)
		fields := DecodeFields(d)
		if d.Finish() != nil {
			return
		}
		again, err := EncodeFields(fields)
		if err != nil {
			t.Fatalf("decoded fields do not encode: %v", err)
		}
		if !bytes.Equal(again, data) {
			t.Fatalf("%x decoded and re-encoded as %x", data, again)
		}
	})
}
