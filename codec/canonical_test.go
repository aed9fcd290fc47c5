package codec_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/fxamacker/cbor/v2"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/internal/golden"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
)

// The direct decoder (codec/decode.go) must accept exactly the inputs the
// general path (decode, re-encode, compare) accepts, and decode them to the
// same values. These tests hold it to that on the ledger's records, on a
// type that uses every shape the planner knows, and on types it leaves to
// the general path.

type namedString string

type namedBytes []byte

type inner struct {
	N    uint16 `cbor:"n"`
	Text string `cbor:"text"`
}

type Embedded struct {
	E int32 `cbor:"e"`
}

type embeddedUnexported struct {
	F bool `cbor:"f"`
}

// selfDescribed writes itself under CBOR's self-described tag, which
// fxamacker strips before UnmarshalCBOR sees the item.
type selfDescribed struct{ N uint64 }

func (s selfDescribed) MarshalCBOR() ([]byte, error) {
	return cbor.Marshal(cbor.Tag{Number: 55799, Content: s.N})
}

func (s *selfDescribed) UnmarshalCBOR(b []byte) error {
	if len(b) > 0 && b[0]>>5 == 6 {
		return errors.New("selfDescribed: given a tagged item")
	}
	return cbor.Unmarshal(b, &s.N)
}

// deep is a custom item of any shape, so that custom items are held to
// the nesting limit counted from the top of the record.
type deep struct{ V any }

func (d deep) MarshalCBOR() ([]byte, error) { return cbor.Marshal(d.V) }

func (d *deep) UnmarshalCBOR(b []byte) error { return cbor.Unmarshal(b, &d.V) }

type deepHolder struct {
	D deep `cbor:"d"`
}

// verbatim keeps its item as it came: only the checks around custom items
// (well-formedness, built-in tags, self-described tags) decide.
type verbatim []byte

func (v verbatim) MarshalCBOR() ([]byte, error) { return v, nil }

func (v *verbatim) UnmarshalCBOR(b []byte) error {
	*v = bytes.Clone(b)
	return nil
}

type verbatimHolder struct {
	R verbatim `cbor:"r"`
}

// nestedArrays returns n arrays nested in one another around a 0.
func nestedArrays(n int) []byte {
	return append(bytes.Repeat([]byte{0x81}, n), 0x00)
}

// pair is a custom type whose item is a nested array, so that custom
// items are bounded by depth and size as the general path bounds them.
type pair struct{ A, B []int64 }

func (p pair) MarshalCBOR() ([]byte, error) { return cbor.Marshal([2][]int64{p.A, p.B}) }

func (p *pair) UnmarshalCBOR(b []byte) error {
	var v [2][]int64
	if err := cbor.Unmarshal(b, &v); err != nil {
		return err
	}
	p.A, p.B = v[0], v[1]
	return nil
}

type allKinds struct {
	B      bool           `cbor:"b"`
	U8     uint8          `cbor:"u8"`
	U16    uint16         `cbor:"u16"`
	U32    uint32         `cbor:"u32"`
	U64    uint64         `cbor:"u64"`
	U      uint           `cbor:"u"`
	I8     int8           `cbor:"i8"`
	I16    int16          // untagged: named by the field
	I32    int32          `json:"i32"` // no cbor tag: the json name
	I64    int64          `cbor:"i64"`
	I      int            `cbor:"i"`
	S      string         `cbor:"s"`
	NS     namedString    `cbor:"ns"`
	Bytes  []byte         `cbor:"bytes"`
	NB     namedBytes     `cbor:"nb"`
	Arr    [4]byte        `cbor:"arr"`
	Strs   []string       `cbor:"strs"`
	Nested [][]int64      `cbor:"nested"`
	Ptr    *inner         `cbor:"ptr"`
	PP     **int64        `cbor:"pp"`
	Link   codec.Link     `cbor:"link"`
	Links  []codec.Link   `cbor:"links"`
	PLink  *codec.Link    `cbor:"plink"`
	Key    keys.PublicKey `cbor:"key"`
	ID     challenge.ID   `cbor:"id"`
	Self   selfDescribed  `cbor:"self"`
	Pair   pair           `cbor:"pair"`
	Inners []inner        `cbor:"inners"`
	Long   uint8          `cbor:"a_field_name_longer_than_twenty_four_bytes"`
	Dash   int            `cbor:"-"`
	hidden int            //nolint:unused // unexported: not encoded
	Embedded
	embeddedUnexported
}

// node is recursive and mapped: both leave it to the general path.
type node struct {
	Kids  []node           `cbor:"kids"`
	Attrs map[string]int64 `cbor:"attrs"`
}

type target struct {
	name    string
	new     func() any
	planned bool
}

var targets = []target{
	{"transcript", func() any { return new(record.Transcript) }, true},
	{"block", func() any { return new(record.Block) }, true},
	{"header", func() any { return new(record.Header) }, true},
	{"fork proof", func() any { return new(record.ForkProof) }, true},
	{"message", func() any { return new(envs.Message) }, true},
	{"link", func() any { return new(codec.Link) }, true},
	{"link pointer", func() any { return new(*codec.Link) }, true},
	{"public key", func() any { return new(keys.PublicKey) }, true},
	{"challenge", func() any { return new(challenge.ID) }, true},
	{"all kinds", func() any { return new(allKinds) }, true},
	{"int64 slice", func() any { return new([]int64) }, true},
	{"uint16", func() any { return new(uint16) }, true},
	{"int8", func() any { return new(int8) }, true},
	{"deep", func() any { return new(deepHolder) }, true},
	{"verbatim", func() any { return new(verbatimHolder) }, true},
	{"node", func() any { return new(node) }, false},
	{"any", func() any { return new(any) }, false},
}

// checkSame decodes data into a fresh value of tg by both paths and fails
// t if they disagree on acceptance or on the value.
func checkSame(t testing.TB, tg target, data []byte) {
	t.Helper()
	direct, general, borrowed := tg.new(), tg.new(), tg.new()
	errD := codec.Unmarshal(data, direct)
	errG := codec.UnmarshalReencode(data, general)
	errB := codec.UnmarshalBorrowed(data, borrowed)
	if (errD == nil) != (errG == nil) || (errD == nil) != (errB == nil) {
		t.Fatalf("%s: % x: direct says %v, general says %v, borrowed says %v", tg.name, data, errD, errG, errB)
	}
	if errD != nil {
		return
	}
	if !reflect.DeepEqual(direct, general) {
		t.Fatalf("%s: % x: direct decoded %#v, general %#v", tg.name, data, direct, general)
	}
	if !reflect.DeepEqual(direct, borrowed) {
		t.Fatalf("%s: % x: direct decoded %#v, borrowed %#v", tg.name, data, direct, borrowed)
	}
	again, err := codec.Marshal(direct)
	if err != nil || !bytes.Equal(again, data) {
		t.Fatalf("%s: accepted % x, which encodes back as % x (%v)", tg.name, data, again, err)
	}
}

func TestPlannedTypes(t *testing.T) {
	for _, tg := range targets {
		if got := codec.HasPlan(tg.new()); got != tg.planned {
			t.Errorf("%s: planned %v, want %v", tg.name, got, tg.planned)
		}
	}
}

// seeds returns valid encodings for each target (by name) plus inputs every
// target must refuse: spec/vectors records and rejects, and values built
// here.
func seeds(t testing.TB) map[string][][]byte {
	out := map[string][][]byte{}
	var lv struct {
		Transcripts []struct{ Hex string } `json:"transcripts"`
		Blocks      []struct {
			Hex       string `json:"hex"`
			HeaderHex string `json:"header_hex"`
		} `json:"blocks"`
		Decisions []struct{ Hex string } `json:"decisions"`
	}
	readVector(t, "ledger.json", &lv)
	for _, v := range lv.Transcripts {
		// Format-1 vectors have their own layout (an unexported type);
		// they stand for every target's rejects, and a format-2 copy of
		// each is a transcript.
		data := unhex(t, v.Hex)
		out["*"] = append(out["*"], data)
		tr, err := record.DecodeTranscript(data)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Format == record.TranscriptFormatV1 {
			tr.Format = record.TranscriptFormat
			tr.Seed = &record.Seed{Anchor: record.Anchor{Number: 7, Hash: record.Hash{1}}, Counter: 3}
		}
		b, err := codec.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		out["transcript"] = append(out["transcript"], b)
	}
	for _, b := range lv.Blocks {
		out["block"] = append(out["block"], unhex(t, b.Hex))
		out["header"] = append(out["header"], unhex(t, b.HeaderHex))
	}
	for _, d := range lv.Decisions {
		out["any"] = append(out["any"], unhex(t, d.Hex))
	}
	var ev struct {
		Records []struct{ Hex string } `json:"records"`
		Reject  []struct{ Hex string } `json:"reject"`
	}
	readVector(t, "encoding.json", &ev)
	for _, r := range append(ev.Records, ev.Reject...) {
		out["*"] = append(out["*"], unhex(t, r.Hex))
	}

	// A transcript's parts, as the store and the verifier meet them.
	var tr record.Transcript
	if err := codec.Unmarshal(out["transcript"][0], &tr); err != nil {
		t.Fatal(err)
	}
	add := func(name string, v any) {
		b, err := codec.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = append(out[name], b)
	}
	add("message", tr.Conversation[0])
	add("public key", tr.Validator)
	add("challenge", tr.Challenge)
	var blk record.Block
	if err := codec.Unmarshal(out["block"][1], &blk); err != nil {
		t.Fatal(err)
	}
	add("link", blk.Prev)
	add("link", codec.Link{})
	add("link pointer", &blk.Prev)
	add("link pointer", (*codec.Link)(nil))
	p, err := record.NewForkProof(out["block"][0], out["block"][0])
	if err == nil {
		add("fork proof", p)
	} else {
		add("fork proof", record.ForkProof{Format: 1, Validator: tr.Validator, Height: 3, A: []byte{1}, B: []byte{}})
	}
	n := int64(-7)
	pn := &n
	all := allKinds{
		B: true, U8: 255, U16: 256, U32: 1 << 16, U64: 1<<64 - 1, U: 1 << 32, I8: -128, I16: 32767, I32: -1 << 31, I64: -1 << 63, I: 23,
		S: "héllo ✓", NS: "named", Bytes: []byte{0, 1}, NB: namedBytes{}, Arr: [4]byte{1, 2, 3, 4},
		Strs: []string{"", "x"}, Nested: [][]int64{{}, {-1, 24, -25}}, Ptr: &inner{N: 24, Text: "t"}, PP: &pn,
		Link: blk.Prev, Links: []codec.Link{blk.Prev, {}}, PLink: &blk.Prev, Key: tr.Validator, ID: tr.Challenge,
		Self: selfDescribed{N: 1000}, Pair: pair{A: []int64{1}, B: []int64{}}, Inners: []inner{{}}, Long: 1,
		Embedded: Embedded{E: -24}, embeddedUnexported: embeddedUnexported{F: true},
	}
	add("all kinds", all)
	valid := out["all kinds"][0]
	all.Ptr, all.PP, all.PLink, all.Strs, all.Links = nil, nil, nil, nil, nil
	add("all kinds", all)
	out["all kinds/near"] = nearMisses(t, valid)
	add("int64 slice", []int64{0, -1, 1 << 40})
	add("uint16", uint16(65535))
	add("int8", int8(-100))
	holder := func(n int) []byte { return append([]byte{0xa1, 0x61, 'd'}, nestedArrays(n)...) }
	// The holder's map is one level: 31 arrays inside it make 32.
	out["deep"] = append(out["deep"], holder(0), holder(31))
	out["deep/near"] = append(out["deep/near"], holder(32), holder(40))
	verb := func(item ...byte) []byte { return append([]byte{0xa1, 0x61, 'r'}, item...) }
	out["verbatim"] = append(out["verbatim"], verb(0x01), verb(0x18, 0x01), verb(0xc2, 0x41, 0x00), verb(0xc1, 0xfb, 0, 0, 0, 0, 0, 0, 0, 0),
		verb(0xc0, 0x61, 'x'), verb(0xd8, 0x2a, 0x82, 0x01, 0x02), verb(0xf8, 0x20))
	out["verbatim/near"] = append(out["verbatim/near"], verb(0xc2, 0x61, 'x'), verb(0xc0, 0x01), verb(0xc1, 0x61, 'x'), verb(0xc3, 0xc2, 0x41, 0x00),
		verb(0xd9, 0xd9, 0xf7, 0x01), verb(0x9f, 0xff), verb(0xf8, 0x1f), verb(0xff), verb(0x1c), verb(0x5f, 0xff), verb(0xd8))
	out["int64 slice/near"] = append(out["int64 slice/near"], []byte{0x9f, 0xff}, []byte{0x9b, 0, 0, 0, 0, 0, 0, 0, 1, 0})
	add("node", node{Kids: []node{{Attrs: map[string]int64{"a": 1}}}})
	add("any", map[string]any{"type": "note", "block": int64(3)})
	return out
}

func readVector(t testing.TB, name string, v any) {
	data, err := os.ReadFile(golden.VectorPath(name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func unhex(t testing.TB, s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCanonicalVectors: the spec's records decode, and its rejects are
// refused, by both paths alike, whatever type they are decoded into.
func TestCanonicalVectors(t *testing.T) {
	s := seeds(t)
	for _, tg := range targets {
		for _, data := range append(s[tg.name], s["*"]...) {
			checkSame(t, tg, data)
		}
		for _, data := range s[tg.name] {
			if err := codec.Unmarshal(data, tg.new()); err != nil {
				t.Errorf("%s: valid encoding % x refused: %v", tg.name, data, err)
			}
		}
		for _, data := range s[tg.name+"/near"] {
			checkSame(t, tg, data)
			if err := codec.Unmarshal(data, tg.new()); err == nil {
				t.Errorf("%s: near miss % x accepted", tg.name, data)
			}
		}
	}
}

// TestCanonicalLimits: both paths refuse arrays past the decoder's element
// limit and accept one at it.
func TestCanonicalLimits(t *testing.T) {
	tg := target{"int64 slice", func() any { return new([]int64) }, true}
	for _, n := range []int{1 << 20, 1<<20 + 1} {
		data := binary.BigEndian.AppendUint32([]byte{0x9a}, uint32(n))
		data = append(data, make([]byte, n)...)
		checkSame(t, tg, data)
		if err := codec.Unmarshal(data, tg.new()); (err == nil) != (n == 1<<20) {
			t.Errorf("array of %d elements: %v", n, err)
		}
	}
}

// TestCanonicalMutations holds the two paths together on systematic
// corruptions of a valid encoding of every target: bytes replaced by
// values that change heads, types and lengths, every truncation, and a
// byte inserted. Short and race runs try every seventh position.
func TestCanonicalMutations(t *testing.T) {
	s := seeds(t)
	subst := []byte{0x00, 0x17, 0x18, 0x19, 0x1b, 0x1f, 0x38, 0x40, 0x58, 0x5f, 0x60, 0x78, 0x80, 0x98, 0xa0, 0xb8, 0xd8, 0xd9, 0xf5, 0xf6, 0xf7, 0xf9, 0xff}
	stride := 1
	if testing.Short() || raceBuild {
		stride = 7
	}
	for _, tg := range targets {
		data := s[tg.name][0]
		for i := 0; i < len(data); i += stride {
			m := bytes.Clone(data)
			for _, b := range append(subst, data[i]^1, data[i]^0x80, data[i]+1, data[i]-1) {
				m[i] = b
				checkSame(t, tg, m)
			}
			checkSame(t, tg, data[:i])
			checkSame(t, tg, slices.Insert(bytes.Clone(data), i, 0x00))
		}
	}
}

func FuzzCanonicalMatchesReencode(f *testing.F) {
	addTargetSeeds(f)
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		checkSame(t, targets[int(which)%len(targets)], data)
	})
}

// nearMisses returns canonical CBOR maps that differ from valid (an
// allKinds encoding) in one field: values out of a field's range, the
// wrong type, the wrong length, missing or extra fields, heads in a longer
// form inside custom items. Single-byte corruptions seldom produce these.
func nearMisses(t testing.TB, valid []byte) [][]byte {
	var fields map[string]cbor.RawMessage
	if err := cbor.Unmarshal(valid, &fields); err != nil {
		t.Fatal(err)
	}
	raw := func(v any) cbor.RawMessage {
		if r, ok := v.(cbor.RawMessage); ok {
			return r
		}
		b, err := codec.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// Decoding into RawMessage dropped the self-described tag (see
	// selfDescribed): put that field back as it was.
	fields["self"] = raw(selfDescribed{N: 1000})
	negOverflow := cbor.RawMessage{0x3b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	changes := []struct {
		key   string
		value any // nil deletes the field
	}{
		{"u8", 256}, {"u8", -1}, {"u16", 65536}, {"u32", uint64(1) << 32}, {"u", -1},
		{"i8", 128}, {"i8", -129}, {"I16", 32768}, {"I16", -32769}, {"i32", int64(1) << 31}, {"i32", -(int64(1) << 31) - 1},
		{"i64", uint64(1) << 63}, {"i64", negOverflow}, {"i", negOverflow}, {"u64", -1},
		{"b", 0}, {"b", cbor.RawMessage{0xf6}}, {"b", cbor.RawMessage{0xf7}},
		{"s", []byte("x")}, {"ns", cbor.RawMessage{0x62, 0xff, 0xfe}}, {"bytes", "x"}, {"bytes", cbor.RawMessage{0xf6}},
		{"arr", []byte{1, 2, 3}}, {"arr", []byte{1, 2, 3, 4, 5}}, {"arr", []int64{1, 2, 3, 4}},
		{"key", make([]byte, 31)}, {"key", make([]byte, 33)}, {"key", cbor.RawMessage{0xf6}},
		{"strs", cbor.RawMessage{0xf6}}, {"strs", []any{"x", int64(1)}}, {"nested", [][]string{{"x"}}},
		{"ptr", map[string]any{"n": 1}}, {"ptr", map[string]any{"n": 1, "text": "", "x": 0}}, {"ptr", map[string]any{"n": 70000, "text": ""}},
		{"pp", cbor.RawMessage{0xf7}},
		{"link", cbor.RawMessage{0xd8, 0x2a, 0x41, 0x00}}, {"link", cbor.RawMessage{0xd9, 0x00, 0x2a, 0xf6}}, {"link", []byte{0}},
		{"plink", cbor.RawMessage{0xf7}},
		{"self", cbor.RawMessage{0xda, 0x00, 0x00, 0xd9, 0xf7, 0x19, 0x03, 0xe8}},
		{"self", cbor.RawMessage{0xd9, 0xd9, 0xf7, 0x18, 0x17}},
		{"self", cbor.RawMessage{0xd9, 0xd9, 0xf7, 0xd9, 0xd9, 0xf7, 0x19, 0x03, 0xe8}},
		{"self", cbor.RawMessage{0x19, 0x03, 0xe8}},
		{"pair", cbor.RawMessage{0x82, 0x81, 0x18, 0x01, 0x80}},
		{"pair", cbor.RawMessage{0x82, 0x81, 0x01, 0x9f, 0xff}},
		{"id", cbor.RawMessage{0x58, 0x01, 0x00}},
		{"e", nil}, {"f", nil}, {"hidden", 1}, {"Dash", 1}, {"extra", 1},
	}
	// Sorted like codec's encoder, but letting the indefinite-length
	// item above through.
	em, err := cbor.EncOptions{Sort: cbor.SortLengthFirst}.EncMode()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, c := range changes {
		m := map[string]cbor.RawMessage{}
		for k, v := range fields {
			m[k] = v
		}
		if c.value == nil {
			delete(m, c.key)
		} else {
			m[c.key] = raw(c.value)
		}
		b, err := em.Marshal(m)
		if err != nil {
			t.Fatalf("%s: %v", c.key, err)
		}
		out = append(out, b)
	}
	return out
}

// addTargetSeeds seeds a fuzz target taking (target index, bytes) with
// every target's seeds, near misses and the shared ones.
func addTargetSeeds(f *testing.F) {
	s := seeds(f)
	for i, tg := range targets {
		for _, data := range slices.Concat(s[tg.name], s[tg.name+"/near"], s["*"]) {
			f.Add(uint8(i), data)
		}
	}
}
