package wire

import (
	"bufio"
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
)

func mustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	data, err := codec.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestRequestsRoundTrip(t *testing.T) {
	alice, _ := keys.FromURI("//Alice")
	c := codec.Sum([]byte("x"))
	for _, r := range []Request{
		{Status: &Status{NetUID: 3, Heads: []Head{{Validator: alice.Public(), Height: 9, CID: codec.LinkTo(c)}}, Forks: []codec.Link{codec.LinkTo(c)}}},
		{Blocks: &BlocksRequest{Validator: alice.Public(), From: 5, Count: MaxBlocksPerRequest}},
		{Objects: &ObjectsRequest{CIDs: []codec.Link{codec.LinkTo(c)}}},
	} {
		data := mustMarshal(t, r)
		got, err := DecodeRequest(data)
		if err != nil {
			t.Fatalf("%x: %v", data, err)
		}
		if !bytes.Equal(mustMarshal(t, got), data) {
			t.Fatalf("round trip of %x differs", data)
		}
	}
}

func TestDecodeRequestRejects(t *testing.T) {
	alice, _ := keys.FromURI("//Alice")
	bob, _ := keys.FromURI("//Bob")
	c := codec.Sum([]byte("x"))
	head := func(v keys.PublicKey) Head { return Head{Validator: v, CID: codec.LinkTo(c)} }
	lo, hi := alice.Public(), bob.Public()
	if bytes.Compare(lo[:], hi[:]) > 0 {
		lo, hi = hi, lo
	}
	tooMany := make([]codec.Link, MaxObjectsPerRequest+1)
	for i := range tooMany {
		tooMany[i] = codec.LinkTo(c)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty map", []byte{0xa0}, "exactly one"},
		{"two kinds", mustMarshal(t, Request{Blocks: &BlocksRequest{Count: 1}, Objects: &ObjectsRequest{CIDs: []codec.Link{codec.LinkTo(c)}}}), "exactly one"},
		{"count 0", mustMarshal(t, Request{Blocks: &BlocksRequest{Count: 0}}), "count 0"},
		{"count too big", mustMarshal(t, Request{Blocks: &BlocksRequest{Count: MaxBlocksPerRequest + 1}}), "count"},
		{"overflow", mustMarshal(t, Request{Blocks: &BlocksRequest{From: ^uint64(0), Count: 2}}), "overflows"},
		{"no CIDs", mustMarshal(t, Request{Objects: &ObjectsRequest{CIDs: []codec.Link{}}}), "0 CIDs"},
		{"too many CIDs", mustMarshal(t, Request{Objects: &ObjectsRequest{CIDs: tooMany}}), "CIDs"},
		{"null CID", mustMarshal(t, Request{Objects: &ObjectsRequest{CIDs: []codec.Link{{}}}}), "null link"},
		{"heads unsorted", mustMarshal(t, Request{Status: &Status{Heads: []Head{head(hi), head(lo)}}}), "increasing"},
		{"heads repeated", mustMarshal(t, Request{Status: &Status{Heads: []Head{head(lo), head(lo)}}}), "increasing"},
		{"netuid too big", mustMarshal(t, Request{Status: &Status{NetUID: 70000}}), "16-bit"},
		{"unknown field", []byte("\xa1\x64ping\x01"), "request"},
		{"too big", make([]byte, MaxRequestBytes+1), "max"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeRequest(tc.data)
			if !errors.Is(err, ErrBadMessage) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrBadMessage mentioning %q", err, tc.want)
			}
		})
	}
}

func TestDecodeResponseRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Response
		want string
	}{
		{"nothing", Response{}, "exactly one"},
		{"two kinds", Response{Objects: &ObjectsResponse{}, Error: &ErrorResponse{}}, "exactly one"},
		{"too many blocks", Response{Blocks: &BlocksResponse{Blocks: make([][]byte, MaxBlocksPerRequest+1)}}, "blocks"},
		{"block too big", Response{Blocks: &BlocksResponse{Blocks: [][]byte{make([]byte, 256<<10+1)}}}, "block 0"},
		{"object too big", Response{Objects: &ObjectsResponse{Objects: [][]byte{make([]byte, MaxObjectBytes+1)}}}, "object 0"},
		{"long error", Response{Error: &ErrorResponse{Message: strings.Repeat("e", MaxErrorMessage+1)}}, "error message"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeResponse(mustMarshal(t, tc.r))
			if !errors.Is(err, ErrBadMessage) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrBadMessage mentioning %q", err, tc.want)
			}
		})
	}
}

func TestFrames(t *testing.T) {
	var buf bytes.Buffer
	for _, m := range [][]byte{{}, []byte("a"), bytes.Repeat([]byte("b"), 300)} {
		if err := WriteFrame(&buf, m); err != nil {
			t.Fatal(err)
		}
	}
	r := bufio.NewReader(&buf)
	for _, want := range []int{0, 1, 300} {
		got, err := ReadFrame(r, 1000)
		if err != nil || len(got) != want {
			t.Fatalf("frame of %d: got %d bytes, %v", want, len(got), err)
		}
	}
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"over the limit", []byte{0xe9, 0x07}, "max"}, // 1001
		{"not minimal", []byte{0x81, 0x00}, "minimal"},
		{"varint too long", []byte{0x80, 0x80, 0x80, 0x80, 0x01}, "longer"},
		{"truncated", []byte{0x05, 'a', 'b'}, "unexpected EOF"},
		{"truncated varint", []byte{0x80}, "unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadFrame(bufio.NewReader(bytes.NewReader(tc.in)), 1000)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}
