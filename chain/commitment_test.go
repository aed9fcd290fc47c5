package chain

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/keys"
)

func TestMinerCommitmentRoundTrip(t *testing.T) {
	t.Parallel()
	cases := []MinerCommitment{
		{Model: "org/model-7B", Revision: "0123456789abcdef0123456789abcdef01234567", Chute: "3f2a9c1e-0d4b-4c55-9a7e-1b2c3d4e5f60"},
		{Model: "m", Revision: "main", Endpoint: "http://127.0.0.1:8000/v1", ModelHash: bytes.Repeat([]byte{7}, 32)},
		{Model: strings.Repeat("a", 60), Revision: strings.Repeat("b", 63), Endpoint: "https://x.example/" + strings.Repeat("p", 100)},
	}
	for _, m := range cases {
		fields, err := m.Fields()
		if err != nil {
			t.Fatalf("%+v: %v", m, err)
		}
		for _, f := range fields {
			if f.Check() != nil {
				t.Fatalf("field %+v invalid", f)
			}
		}
		back, err := ParseMinerCommitment(fields)
		if err != nil {
			t.Fatal(err)
		}
		if back.Model != m.Model || back.Revision != m.Revision || back.Chute != m.Chute || back.Endpoint != m.Endpoint || !bytes.Equal(back.ModelHash, m.ModelHash) {
			t.Fatalf("round trip %+v -> %+v", m, back)
		}
	}
	fields, _ := cases[0].Fields()
	if got := string(fields[0].Bytes); got != "lm1:org/model-7B@0123456789abcdef0123456789abcdef01234567" {
		t.Fatalf("field 0 = %q", got)
	}
	if got := string(fields[1].Bytes); got != "chute:3f2a9c1e-0d4b-4c55-9a7e-1b2c3d4e5f60" {
		t.Fatalf("field 1 = %q", got)
	}
}

func TestMinerCommitmentRejects(t *testing.T) {
	t.Parallel()
	ok := MinerCommitment{Model: "o/m", Revision: "r", Chute: "c"}
	cases := map[string]func(*MinerCommitment){
		"no model":        func(m *MinerCommitment) { m.Model = "" },
		"space in model":  func(m *MinerCommitment) { m.Model = "o/m x" },
		"@ in revision":   func(m *MinerCommitment) { m.Revision = "a@b" },
		"too long":        func(m *MinerCommitment) { m.Model = strings.Repeat("a", 124) },
		"both places":     func(m *MinerCommitment) { m.Endpoint = "http://h/" },
		"no place":        func(m *MinerCommitment) { m.Chute = "" },
		"ftp endpoint":    func(m *MinerCommitment) { m.Chute, m.Endpoint = "", "ftp://h/" },
		"short hash":      func(m *MinerCommitment) { m.ModelHash = []byte{1} },
		"non-canon URL":   func(m *MinerCommitment) { m.Chute, m.Endpoint = "", "http://h/a b" },
		"chute with ctrl": func(m *MinerCommitment) { m.Chute = "a\nb" },
	}
	for name, mutate := range cases {
		m := ok
		mutate(&m)
		if _, err := m.Fields(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// Foreign commitments are not ours.
	for _, fields := range [][]Data{
		nil,
		{Raw([]byte(`{"model":"x"}`))},
		{Raw([]byte("lm1:a")), Raw([]byte("chute:c"))},
		{Raw([]byte("lv1:1:2")), Sha256Field([32]byte{})},
		{Raw([]byte("lm1:a@b")), Raw([]byte("chute:c")), Raw([]byte("x"))},
	} {
		if _, err := ParseMinerCommitment(fields); !errors.Is(err, ErrNotOurs) {
			t.Errorf("%v: err %v", fields, err)
		}
	}
}

func TestValidatorCommitment(t *testing.T) {
	t.Parallel()
	v := ValidatorCommitment{Height: 812, Size: 40000, Root: [32]byte{9}}
	fields := v.Fields()
	if string(fields[0].Bytes) != "lv1:812:40000" || fields[1].Kind != DataSha256 {
		t.Fatalf("fields %+v", fields)
	}
	back, err := ParseValidatorCommitment(fields)
	if err != nil || back != v {
		t.Fatalf("round trip %+v %v", back, err)
	}
	for _, head := range []string{"lv1:01:2", "lv1:1", "lv1:-1:2", "lv1:1:2:3", "lm1:1:2"} {
		if _, err := ParseValidatorCommitment([]Data{Raw([]byte(head)), Sha256Field([32]byte{})}); !errors.Is(err, ErrNotOurs) {
			t.Errorf("%q: err %v", head, err)
		}
	}
}

func TestContenders(t *testing.T) {
	t.Parallel()
	hk := func(b byte) keys.PublicKey { return keys.PublicKey{b} }
	m := &Metagraph{Neurons: []Neuron{{UID: 0, Hotkey: hk(10)}, {UID: 1, Hotkey: hk(11)}, {UID: 2, Hotkey: hk(12)}, {UID: 3, Hotkey: hk(13)}}}
	miner := func(model, rev string, hash []byte) []Data {
		f, err := MinerCommitment{Model: model, Revision: rev, Chute: "c", ModelHash: hash}.Fields()
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	h := bytes.Repeat([]byte{1}, 32)
	cs := []Commitment{
		{Hotkey: hk(11), Block: 50, Fields: miner("a/x", "1", h)},          // uid 1: first with hash h
		{Hotkey: hk(12), Block: 40, Fields: miner("a/y", "1", nil)},        // uid 2: earliest
		{Hotkey: hk(13), Block: 50, Fields: miner("b/copy", "9", h)},       // uid 3: same block as uid 1, copy of h
		{Hotkey: hk(10), Block: 60, Fields: miner("a/y", "1", nil)},        // uid 0: copy of uid 2 by identity
		{Hotkey: hk(99), Block: 1, Fields: miner("z/z", "1", nil)},         // unregistered
		{Hotkey: hk(10), Block: 2, Fields: ValidatorCommitment{}.Fields()}, // not a miner commitment
	}
	got := Contenders(m, cs)
	wantUID := []uint16{2, 1, 3, 0}
	wantCopy := []int{-1, -1, 1, 2}
	if len(got) != len(wantUID) {
		t.Fatalf("got %d contenders: %+v", len(got), got)
	}
	for i, c := range got {
		copyOf := -1
		if c.CopyOf != nil {
			copyOf = int(*c.CopyOf)
		}
		if c.UID != wantUID[i] || copyOf != wantCopy[i] {
			t.Errorf("position %d: uid %d copy_of %d, want uid %d copy_of %d", i, c.UID, copyOf, wantUID[i], wantCopy[i])
		}
	}
}

// FuzzParseMinerCommitment: no panic; an accepted commitment re-encodes to
// the same fields.
func FuzzParseMinerCommitment(f *testing.F) {
	f.Add([]byte("lm1:o/m@r"), []byte("chute:c"), []byte{})
	f.Add([]byte("lm1:o/m@r"), []byte("http://h:1/v1"), bytes.Repeat([]byte{1}, 32))
	f.Fuzz(func(t *testing.T, a, b, c []byte) {
		if len(a) > MaxRaw || len(b) > MaxRaw {
			return
		}
		fields := []Data{Raw(a), Raw(b)}
		if len(c) > 0 {
			fields = append(fields, Data{Kind: DataSha256, Bytes: c})
		}
		m, err := ParseMinerCommitment(fields)
		if err != nil {
			return
		}
		again, err := m.Fields()
		if err != nil || len(again) != len(fields) {
			t.Fatalf("accepted %q %q but it does not re-encode: %v", a, b, err)
		}
		for i := range again {
			if !bytes.Equal(again[i].Bytes, fields[i].Bytes) {
				t.Fatalf("field %d re-encodes differently", i)
			}
		}
	})
}
