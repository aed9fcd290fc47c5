package record

import (
	"reflect"
	"testing"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/codec"
)

// The format-1 layout must be Transcript's without seed, field for field,
// or old records would decode into the wrong fields or lose some.
func TestTranscriptV1Layout(t *testing.T) {
	v1 := reflect.TypeFor[transcriptV1]()
	all := reflect.TypeFor[Transcript]()
	var want []reflect.StructField
	for i := range all.NumField() {
		if f := all.Field(i); f.Name != "Seed" {
			want = append(want, f)
		}
	}
	if v1.NumField() != len(want) {
		t.Fatalf("format 1 has %d fields, Transcript without seed %d", v1.NumField(), len(want))
	}
	for i, f := range want {
		g := v1.Field(i)
		if g.Name != f.Name || g.Type != f.Type || g.Tag.Get("cbor") != f.Tag.Get("cbor") {
			t.Errorf("field %d: format 1 has %s %s %q, Transcript %s %s %q", i, g.Name, g.Type, g.Tag.Get("cbor"), f.Name, f.Type, f.Tag.Get("cbor"))
		}
	}
	id, err := challenge.New("mult8", 1, [32]byte{1})
	if err != nil {
		t.Fatal(err)
	}
	tr := Transcript{Challenge: id, Seed: &Seed{}}
	raw, err := codec.Marshal(tr.v1())
	if err != nil || raw[0] != mapHeadV1 {
		t.Fatalf("format 1 map head %x, want %#x (err %v)", raw[:min(len(raw), 1)], mapHeadV1, err)
	}
	raw, err = codec.Marshal(&tr)
	if err != nil || raw[0] != mapHeadV1+1 {
		t.Fatalf("format 2 map head %x, want %#x (err %v)", raw[:min(len(raw), 1)], mapHeadV1+1, err)
	}
}
