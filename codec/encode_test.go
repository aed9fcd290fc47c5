package codec_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/fxamacker/cbor/v2"
	"github.com/ipfs/go-cid"
	"github.com/multiformats/go-multihash"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/codec"
)

// The direct encoder (codec/encode.go) must write exactly what fxamacker's
// encoder writes under codec's options, and refuse exactly what it
// refuses. These tests hold the two together on every target of the
// decoder tests, on values filled at random, and on edge cases.

// widths holds an integer of every width, signed and unsigned.
type widths struct {
	I8  int8    `cbor:"i8"`
	I16 int16   `cbor:"i16"`
	I32 int32   `cbor:"i32"`
	I64 int64   `cbor:"i64"`
	I   int     `cbor:"i"`
	U8  uint8   `cbor:"u8"`
	U16 uint16  `cbor:"u16"`
	U32 uint32  `cbor:"u32"`
	U64 uint64  `cbor:"u64"`
	U   uint    `cbor:"u"`
	Is  []int64 `cbor:"is"`
}

// receipt is shaped like a ledger record: nested and embedded structs,
// byte arrays whose heads take one, two and three bytes, links and
// pointers at several levels, custom fields inside slices.
type receipt struct {
	Version uint64        `cbor:"v"`
	Head    receiptHeader `cbor:"head"`
	Entries []entry       `cbor:"entries"`
	Tiny    [0]byte       `cbor:"tiny"`
	Mid     [24]byte      `cbor:"mid"`
	Wide    [300]byte     `cbor:"wide"`
	Parent  *receipt2     `cbor:"parent"`
	Trailer
}

type receiptHeader struct {
	Signer keys32       `cbor:"signer"`
	Prev   codec.Link   `cbor:"prev"`
	Links  []codec.Link `cbor:"links"`
	Note   *string      `cbor:"note"`
}

// keys32 stands for keys.PublicKey's kind: a custom byte array.
type keys32 [32]byte

func (k keys32) MarshalCBOR() ([]byte, error) { return cbor.Marshal(k[:]) }

func (k *keys32) UnmarshalCBOR(b []byte) error {
	var s []byte
	if err := cbor.Unmarshal(b, &s); err != nil {
		return err
	}
	if len(s) != len(k) {
		return fmt.Errorf("keys32: %d bytes", len(s))
	}
	copy(k[:], s)
	return nil
}

type entry struct {
	ID     challenge.ID `cbor:"id"`
	Reward int64        `cbor:"reward"`
	Blob   []byte       `cbor:"blob"`
	Tags   []string     `cbor:"tags"`
}

type receipt2 struct {
	Link  *codec.Link `cbor:"link"`
	Count **uint32    `cbor:"count"`
}

type Trailer struct {
	Done bool `cbor:"done"`
	Inner
}

type Inner struct {
	Depth int16 `cbor:"depth"`
}

// errBoom is what failing's MarshalCBOR returns.
var errBoom = errors.New("boom")

type failing struct{ Fail bool }

func (f failing) MarshalCBOR() ([]byte, error) {
	if f.Fail {
		return nil, errBoom
	}
	return []byte{0x01}, nil
}

func (f *failing) UnmarshalCBOR([]byte) error { return nil }

type failingHolder struct {
	A []failing `cbor:"a"`
}

// bumping has a pointer receiver that changes its value: fxamacker calls
// it on a copy, so the value encoded is never changed.
type bumping struct{ N uint64 }

func (b *bumping) MarshalCBOR() ([]byte, error) {
	b.N++
	return cbor.Marshal(b.N)
}

func (b *bumping) UnmarshalCBOR(data []byte) error { return cbor.Unmarshal(data, &b.N) }

type bumpingHolder struct {
	B bumping  `cbor:"b"`
	P *bumping `cbor:"p"`
}

// reusing returns the same memory from every MarshalCBOR call, changed:
// fxamacker copies it at once, so must the direct encoder.
type reusing struct{ N uint8 }

var reusedBuf = make([]byte, 1)

func (r reusing) MarshalCBOR() ([]byte, error) {
	reusedBuf[0] = r.N % 24
	return reusedBuf, nil
}

func (r *reusing) UnmarshalCBOR([]byte) error { return nil }

type reusingHolder struct {
	A reusing `cbor:"a"`
	B reusing `cbor:"b"`
}

// encodeTypes are the types the random test fills, beyond the decoder
// tests' targets.
var encodeTypes = []func() any{
	func() any { return new(widths) },
	func() any { return new(receipt) },
	func() any { return new(failingHolder) },
	func() any { return new(bumpingHolder) },
	func() any { return new(verbatimHolder) },
	func() any { return new(reusingHolder) },
	func() any { return new([]codec.Link) },
	func() any { return new(string) },
	func() any { return new([]byte) },
	func() any { return new(**int64) },
}

// checkEncoders encodes v, by value and through a pointer, with Marshal,
// with the direct path alone (if v's type has a plan) and with the general
// path, and fails t unless all agree: the same bytes, or all an error. It
// returns the bytes and the general path's error.
func checkEncoders(t testing.TB, v any) ([]byte, error) {
	t.Helper()
	want, errG := codec.MarshalGeneral(v)
	if v == nil {
		got, err := codec.Marshal(v)
		if err != nil || errG != nil || !bytes.Equal(got, want) {
			t.Fatalf("nil: Marshal writes % x (%v), general % x (%v)", got, err, want, errG)
		}
		return want, nil
	}
	pv := reflect.New(reflect.TypeOf(v))
	pv.Elem().Set(reflect.ValueOf(v))
	planned := codec.HasPlan(pv.Interface())
	for _, in := range []any{v, pv.Interface()} {
		ways := []struct {
			name string
			fn   func(any) ([]byte, error)
		}{{"Marshal", codec.Marshal}, {"general", codec.MarshalGeneral}}
		if planned {
			ways = append(ways, struct {
				name string
				fn   func(any) ([]byte, error)
			}{"direct", codec.MarshalDirect})
		}
		for _, w := range ways {
			got, err := w.fn(in)
			if (err == nil) != (errG == nil) {
				t.Fatalf("%T: %s says %v, general by value says %v", in, w.name, err, errG)
			}
			if err == nil && !bytes.Equal(got, want) {
				t.Fatalf("%T: %s writes\n% x\ngeneral by value writes\n% x", in, w.name, got, want)
			}
		}
	}
	return want, errG
}

// TestMarshalMatchesGeneral: what the decoder tests accept, and values
// built here, encode alike by both paths (and, decoded, give their input
// back).
func TestMarshalMatchesGeneral(t *testing.T) {
	s := seeds(t)
	for _, tg := range targets {
		for _, data := range s[tg.name] {
			v := tg.new()
			if err := codec.Unmarshal(data, v); err != nil {
				t.Fatalf("%s: %v", tg.name, err)
			}
			got, err := checkEncoders(t, reflect.ValueOf(v).Elem().Interface())
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s: decoded from % x, encodes as % x (%v)", tg.name, data, got, err)
			}
		}
	}
}

// TestMarshalEdgeCases pins bytes that are easy to get wrong, against both
// the general path and the expected encoding.
func TestMarshalEdgeCases(t *testing.T) {
	type nils struct {
		B []byte   `cbor:"b"`
		S []string `cbor:"s"`
		P *int8    `cbor:"p"`
		L codec.Link
	}
	cases := []struct {
		v    any
		want string
	}{
		{int8(-128), "387f"}, {int8(127), "187f"}, {int16(-32768), "397fff"}, {int32(math.MinInt32), "3a7fffffff"},
		{int64(math.MinInt64), "3b7fffffffffffffff"}, {int64(math.MaxInt64), "1b7fffffffffffffff"},
		{uint64(math.MaxUint64), "1bffffffffffffffff"}, {uint32(math.MaxUint32), "1affffffff"},
		{int64(-24), "37"}, {int64(-25), "3818"}, {int64(-256), "38ff"}, {int64(-257), "390100"},
		{int64(-65536), "39ffff"}, {int64(-65537), "3a00010000"}, {int64(-1 << 32), "3affffffff"}, {int64(-1<<32 - 1), "3b0000000100000000"},
		{uint16(23), "17"}, {uint16(24), "1818"}, {uint16(255), "18ff"}, {uint16(256), "190100"}, {uint(1 << 32), "1b0000000100000000"},
		// Nil and empty slices both encode empty (NilContainerAsEmpty).
		{nils{}, "a4 614c f6 6162 40 6170 f6 6173 80"},
		{nils{B: []byte{}, S: []string{}}, "a4 614c f6 6162 40 6170 f6 6173 80"},
		{"\xff\xfe", "62fffe"},
		{[]byte(nil), "40"}, {[]string(nil), "80"}, {(*int8)(nil), "f6"}, {codec.Link{}, "f6"}, {(*codec.Link)(nil), "f6"},
		{[0]byte{}, "40"},
	}
	for _, c := range cases {
		got, err := checkEncoders(t, c.v)
		if err != nil {
			t.Fatalf("%T %v: %v", c.v, c.v, err)
		}
		if fmt.Sprintf("%x", got) != strings.ReplaceAll(c.want, " ", "") {
			t.Errorf("%T %v: % x, want %s", c.v, c.v, got, c.want)
		}
	}
}

// TestMarshalCustomErrors: a MarshalCBOR error, and output fxamacker's
// encoder refuses, are refused alike; what it accepts is written as it is.
func TestMarshalCustomErrors(t *testing.T) {
	_, err := checkEncoders(t, failingHolder{A: []failing{{}, {Fail: true}}})
	if err == nil {
		t.Fatal("a failing MarshalCBOR encoded")
	}
	for _, fn := range []func(any) ([]byte, error){codec.Marshal, codec.MarshalDirect, codec.MarshalGeneral} {
		if _, err := fn(failingHolder{A: []failing{{Fail: true}}}); !errors.Is(err, errBoom) {
			t.Errorf("error %v does not wrap MarshalCBOR's", err)
		}
	}

	deepest := bytes.Repeat([]byte{0x81}, 65535)
	deepest = append(deepest, 0x00)
	tooDeep := append([]byte{0x81}, deepest...)
	items := []struct {
		item []byte
		ok   bool
	}{
		{nil, false}, {[]byte{}, false}, {[]byte{0x01}, true}, {[]byte{0x01, 0x02}, false}, {[]byte{0x18}, false},
		{[]byte{0x18, 0x01}, true},                             // not canonical, but well-formed: written as it is
		{[]byte{0xa2, 0x61, 'b', 0x01, 0x61, 'a', 0x02}, true}, // unsorted keys likewise
		{[]byte{0x9f, 0xff}, false}, {[]byte{0x5f, 0xff}, false}, {[]byte{0xff}, false}, {[]byte{0x1c}, false}, {[]byte{0xf8, 0x1f}, false},
		{[]byte{0xf8, 0x20}, true}, {[]byte{0xf9, 0x7e, 0x00}, true}, {[]byte{0xc2, 0x41, 0x00}, true}, {[]byte{0xc2, 0x61, 'x'}, false},
		{[]byte{0xc0, 0x61, 'x'}, true}, {[]byte{0xc0, 0x01}, false}, {[]byte{0xc1, 0xfb, 0, 0, 0, 0, 0, 0, 0, 0}, true}, {[]byte{0xc1, 0x61, 'x'}, false},
		{[]byte{0xc3, 0xc2, 0x41, 0x00}, false}, {[]byte{0xd8, 0x2a, 0xd8, 0x2a, 0x01}, true}, {[]byte{0xd8}, false}, {[]byte{0xc6}, false},
		{[]byte{0x9a, 0x80, 0, 0, 0}, false}, {[]byte{0x9a, 0x7f, 0xff, 0xff, 0xff}, false}, {[]byte{0x5b, 0xff, 0, 0, 0, 0, 0, 0, 0}, false},
		{[]byte{0xbb, 0, 0, 0, 0, 0x80, 0, 0, 0}, false}, {[]byte{0xa1, 0x01}, false}, {[]byte{0x62, 0xff, 0xfe}, true},
		{deepest, true}, {tooDeep, false},
		{slices.Concat(bytes.Repeat([]byte{0xc6}, 40), []byte{0x01}), true},
	}
	for _, it := range items {
		v := verbatimHolder{R: it.item}
		got, err := checkEncoders(t, v)
		if (err == nil) != it.ok {
			t.Errorf("custom item % x: error %v, want ok %v", it.item[:min(len(it.item), 8)], err, it.ok)
		}
		if err == nil && !bytes.Equal(got, append([]byte{0xa1, 0x61, 'r'}, it.item...)) {
			t.Errorf("custom item % x written as % x", it.item, got)
		}
		if errC := codec.CheckMarshaled(it.item); (errC == nil) != it.ok {
			t.Errorf("CheckMarshaled(% x): %v", it.item[:min(len(it.item), 8)], errC)
		}
	}
	for _, b := range [][]byte{{}, {0x18}, {0x9a, 0x7f, 0xff, 0xff, 0xff}} {
		want := io.ErrUnexpectedEOF
		if len(b) == 0 {
			want = io.EOF
		}
		for _, fn := range []func(any) ([]byte, error){codec.MarshalDirect, codec.MarshalGeneral} {
			if _, err := fn(verbatimHolder{R: b}); !errors.Is(err, want) {
				t.Errorf("custom item % x: %v, want %v", b, err, want)
			}
		}
	}
}

// TestMarshalPointerReceiverCopies: a MarshalCBOR with a pointer receiver
// is called on a copy, by both paths.
func TestMarshalPointerReceiverCopies(t *testing.T) {
	v := &bumpingHolder{B: bumping{N: 7}, P: &bumping{N: 9}}
	got, err := checkEncoders(t, *v)
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte{0xa2, 0x61, 'b', 0x08, 0x61, 'p', 0x0a}; !bytes.Equal(got, want) {
		t.Fatalf("% x, want % x", got, want)
	}
	if _, err := codec.Marshal(v); err != nil || v.B.N != 7 || v.P.N != 9 {
		t.Fatalf("encoding changed the value: %+v %+v (%v)", v.B, *v.P, err)
	}
}

func TestMarshalCopiesCustomOutput(t *testing.T) {
	for range 3 { // and again from the encoder's memo
		got, err := checkEncoders(t, reusingHolder{A: reusing{1}, B: reusing{2}})
		if want := []byte{0xa2, 0x61, 'a', 0x01, 0x61, 'b', 0x02}; err != nil || !bytes.Equal(got, want) {
			t.Fatalf("% x (%v), want % x", got, err, want)
		}
	}
}

// TestMarshalRandomValues fills every planned type with random values
// (extremes of every integer, nil and empty slices, nil pointers, invalid
// UTF-8, long strings, links of every head size, custom fields that fail)
// and holds the two paths together on them.
func TestMarshalRandomValues(t *testing.T) {
	n := 300
	if testing.Short() || raceBuild {
		n = 40
	}
	var types []func() any
	for _, tg := range targets {
		types = append(types, tg.new)
	}
	types = append(types, encodeTypes...)
	for _, mk := range types {
		seed := rand.Uint64()
		f := newFiller(seed)
		var done []any
		check := func(v any) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%T (seed %d): panic %v", v, seed, r)
				}
			}()
			checkEncoders(t, reflect.ValueOf(v).Elem().Interface())
		}
		for range n {
			v := mk()
			f.fill(reflect.ValueOf(v).Elem(), 0)
			check(v)
			done = append(done, v)
		}
		// Values met again, as the encoder's memo of custom items
		// (encode.go) meets a validator's key again.
		for range 2 {
			for _, v := range done[len(done)-10:] {
				check(v)
			}
		}
	}
}

// TestMarshalMemoFollowsValue: a custom item remembered by the encoder is
// written for its own value only, not for the value last seen at the same
// place.
func TestMarshalMemoFollowsValue(t *testing.T) {
	var k keys32
	for i := range 5 {
		for range 3 {
			got, err := checkEncoders(t, k)
			if err != nil {
				t.Fatal(err)
			}
			want := append([]byte{0x58, 0x20}, k[:]...)
			if !bytes.Equal(got, want) {
				t.Fatalf("key %d: % x, want % x", i, got, want)
			}
		}
		k[i*7%32]++
	}
}

// TestMarshalConcurrent: encoders share plans, nothing else.
func TestMarshalConcurrent(t *testing.T) {
	f := newFiller(1)
	var vs []*receipt
	var want [][]byte
	for range 8 {
		v := new(receipt)
		f.fill(reflect.ValueOf(v).Elem(), 0)
		b, err := codec.MarshalGeneral(v)
		if err != nil {
			continue
		}
		vs, want = append(vs, v), append(want, b)
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(vs))
	for i := range vs {
		wg.Go(func() {
			for range 50 {
				got, err := codec.Marshal(vs[i])
				if err != nil || !bytes.Equal(got, want[i]) {
					errs <- fmt.Errorf("value %d: % x (%v)", i, got, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// FuzzMarshalMatchesGeneral: whatever decodes into a target encodes alike
// by both paths, as the input; and any bytes a custom type returns from
// MarshalCBOR are refused, or written as they are, by both.
func FuzzMarshalMatchesGeneral(f *testing.F) {
	addTargetSeeds(f)
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		tg := targets[int(which)%len(targets)]
		v := tg.new()
		if err := codec.Unmarshal(data, v); err == nil {
			got, err := checkEncoders(t, reflect.ValueOf(v).Elem().Interface())
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s: decoded from % x, encodes as % x (%v)", tg.name, data, got, err)
			}
		}
		checkEncoders(t, verbatimHolder{R: data})
	})
}

// filler puts random values into Go values by reflection.
type filler struct {
	r     *rand.Rand
	links []codec.Link
}

func newFiller(seed uint64) *filler {
	f := &filler{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	f.links = append(f.links, codec.Link{})
	for _, n := range []int{0, 1, 20, 300, 70000} {
		mh, err := multihash.Sum(make([]byte, n), multihash.IDENTITY, -1)
		if err != nil {
			panic(err)
		}
		f.links = append(f.links, codec.LinkTo(cid.NewCidV1(cid.Raw, mh)), codec.LinkTo(codec.Sum(make([]byte, n))))
	}
	return f
}

var (
	typeLink     = reflect.TypeFor[codec.Link]()
	typeID       = reflect.TypeFor[challenge.ID]()
	typeDeep     = reflect.TypeFor[deep]()
	typeVerbatim = reflect.TypeFor[verbatim]()
)

// fill sets v (addressable) to a random value of its type.
func (f *filler) fill(v reflect.Value, depth int) {
	switch v.Type() {
	case typeLink:
		v.Set(reflect.ValueOf(f.links[f.r.IntN(len(f.links))]))
		return
	case typeID:
		env := []string{"mult8", "sat", "a", "", "Bad", strings.Repeat("x", 300)}[f.r.IntN(6)]
		id := challenge.ID{Env: env, Version: uint16(f.r.Uint32())}
		f.fill(reflect.ValueOf(&id.Seed).Elem(), depth)
		v.Set(reflect.ValueOf(id))
		return
	case typeDeep:
		// deep encodes with fxamacker's default mode, which does not sort
		// maps: give it none, so that it returns the same bytes each time.
		v.Set(reflect.ValueOf(deep{V: f.anyValue(depth, false)}))
		return
	case typeVerbatim:
		b, _ := cbor.Marshal(f.anyValue(0, true))
		if f.r.IntN(4) == 0 {
			b = f.bytes() // mostly not one well-formed item
		}
		v.SetBytes(b)
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(f.r.IntN(2) == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(f.int(v))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(f.uint(v))
	case reflect.String:
		v.SetString(f.str())
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if b := f.bytes(); b != nil {
				v.Set(reflect.ValueOf(b).Convert(v.Type()))
			}
			return
		}
		switch k := f.r.IntN(6); {
		case k == 0 || depth > 6:
			// nil
		case k == 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, f.r.IntN(3)))
		default:
			s := reflect.MakeSlice(v.Type(), k-1, k-1)
			for i := range k - 1 {
				f.fill(s.Index(i), depth+1)
			}
			v.Set(s)
		}
	case reflect.Array:
		for i := range v.Len() {
			f.fill(v.Index(i), depth+1)
		}
	case reflect.Pointer:
		if f.r.IntN(3) == 0 || depth > 6 {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			// Unexported fields too (promoted ones are encoded).
			fv := v.Field(i)
			f.fill(reflect.NewAt(fv.Type(), unsafe.Pointer(fv.UnsafeAddr())).Elem(), depth+1)
		}
	case reflect.Map:
		if f.r.IntN(3) == 0 {
			return
		}
		m := reflect.MakeMap(v.Type())
		for range f.r.IntN(4) {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			f.fill(k, depth+1)
			f.fill(e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Interface:
		if a := f.anyValue(depth, false); a != nil {
			v.Set(reflect.ValueOf(a))
		}
	}
}

var intEdges = []int64{0, 1, 23, 24, 255, 256, 65535, 65536, 1<<32 - 1, 1 << 32, math.MaxInt64,
	-1, -24, -25, -256, -257, -65536, -65537, -1 << 32, -1<<32 - 1, math.MinInt64}

func (f *filler) int(v reflect.Value) int64 {
	bits := v.Type().Bits()
	lo, hi := int64(-1)<<(bits-1), int64(uint64(1)<<(bits-1)-1)
	switch k := f.r.IntN(4); k {
	case 0:
		return []int64{lo, hi, lo + 1, hi - 1}[f.r.IntN(4)]
	case 1:
		return int64(f.r.Uint64()) >> (64 - bits)
	}
	x := intEdges[f.r.IntN(len(intEdges))]
	return max(lo, min(hi, x))
}

func (f *filler) uint(v reflect.Value) uint64 {
	bits := v.Type().Bits()
	hi := uint64(math.MaxUint64) >> (64 - bits)
	switch k := f.r.IntN(4); k {
	case 0:
		return []uint64{hi, hi - 1, hi >> 1, 0}[f.r.IntN(4)]
	case 1:
		return f.r.Uint64() >> (64 - bits)
	}
	x := intEdges[f.r.IntN(len(intEdges))]
	if x < 0 {
		x = -x - 1
	}
	return min(hi, uint64(x))
}

var strEdges = []string{"", "a", "héllo ✓", "\xff", "a\xc3", "\xed\xa0\x80", "\x00", strings.Repeat("y", 23), strings.Repeat("y", 24),
	strings.Repeat("ü", 128), strings.Repeat("z", 256), strings.Repeat("q", 70000)}

func (f *filler) str() string {
	if f.r.IntN(2) == 0 {
		return strEdges[f.r.IntN(len(strEdges))]
	}
	return string(f.randBytes(f.r.IntN(40)))
}

// bytes returns nil, an empty slice, or bytes of a length whose head takes
// one to five bytes.
func (f *filler) bytes() []byte {
	switch f.r.IntN(8) {
	case 0:
		return nil
	case 1:
		return []byte{}
	case 2:
		return f.randBytes([]int{23, 24, 255, 256, 65536}[f.r.IntN(5)])
	}
	return f.randBytes(f.r.IntN(40))
}

func (f *filler) randBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(f.r.Uint32())
	}
	return b
}

// anyValue returns a random untyped value: what a custom type might hold.
func (f *filler) anyValue(depth int, maps bool) any {
	switch k := f.r.IntN(7); {
	case k == 0:
		return nil
	case k == 1:
		return int64(f.r.Uint64())
	case k == 2:
		return f.str()
	case k == 3:
		return f.bytes()
	case k == 4 && depth < 4:
		var a []any
		for range f.r.IntN(4) {
			a = append(a, f.anyValue(depth+1, maps))
		}
		return a
	case k == 5 && depth < 4 && maps:
		m := map[string]any{}
		for range f.r.IntN(4) {
			m[f.str()] = f.anyValue(depth+1, maps)
		}
		return m
	}
	return f.r.IntN(2) == 0
}

func TestBitsType(t *testing.T) {
	type padded struct {
		A uint8
		B uint64
	}
	type packed struct {
		A [3]uint8
		B int8
		C uint32
	}
	cases := []struct {
		v    any
		want bool
	}{
		{keys32{}, true}, {packed{}, true}, {[4]int16{}, true}, {true, true}, {struct{}{}, true},
		{padded{}, false}, {"", false}, {[]byte{}, false}, {new(int), false}, {float64(0), false}, {[2]string{}, false},
	}
	for _, c := range cases {
		if got := codec.BitsType(reflect.TypeOf(c.v)); got != c.want {
			t.Errorf("%T: %v, want %v", c.v, got, c.want)
		}
	}
}
