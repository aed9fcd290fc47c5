package p2p

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ipfs/go-cid"
	"github.com/multiformats/go-multihash"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// syncReject is one frame or sync message of p2p.json's reject that a
// conforming node refuses (spec/p2p.md, Sync protocol), breaking one rule.
type syncReject struct {
	Name string `json:"name"`
	// Kind is "request frame" or "response frame" (hex is a whole frame,
	// or its length prefix alone where the prefix is what is refused),
	// "request" or "response" (hex is the DAG-CBOR message).
	Kind string `json:"kind"`
	Rule string `json:"rule"`
	Hex  string `json:"hex"`
	// want is a fragment of the Go error.
	want string
}

func buildSyncRejects(t *testing.T) []syncReject {
	h := hex.EncodeToString
	enc := func(v any) string { return h(mustMarshal(t, v)) }
	_, c, err := codec.Encode(map[string]string{"x": "y"})
	if err != nil {
		t.Fatal(err)
	}
	link := codec.LinkTo(c)
	rawCID, err := cid.V1Builder{Codec: cid.Raw, MhType: multihash.SHA2_256}.Sum([]byte("raw"))
	if err != nil {
		t.Fatal(err)
	}
	v1, v2 := keys.PublicKey{1}, keys.PublicKey{2}
	status := func(change func(*wire.Status)) *wire.Status {
		s := &wire.Status{NetUID: 120, Genesis: wire.GenesisOf(recordtest.Network), Heads: []wire.Head{{Validator: v1, CID: link}, {Validator: v2, CID: link}}, Forks: []codec.Link{}}
		change(s)
		return s
	}
	blocks := &wire.BlocksRequest{Validator: v1, From: 0, Count: 1}
	uvarint := func(n uint64) string { return h(binaryUvarint(n)) }
	return []syncReject{
		{"length 1 in two bytes (81 00)", "request frame", "frame length", "8100a0", "not minimal"},
		{"length 0 in two bytes (80 00)", "request frame", "frame length", "8000", "not minimal"},
		{"five-byte length prefix", "response frame", "frame length", "8080808001", "longer than 4 bytes"},
		{"request of 1 MiB + 1 bytes", "request frame", "frame size", uvarint(wire.MaxRequestBytes + 1), "max 1048576"},
		{"response of 16 MiB + 1 bytes", "response frame", "frame size", uvarint(wire.MaxResponseBytes + 1), "max 16777216"},
		{"frame cut short", "request frame", "frame size", "05a0", "unexpected EOF"},

		{"request with two keys", "request", "one key", enc(wire.Request{Blocks: blocks, Objects: &wire.ObjectsRequest{CIDs: []codec.Link{link}}}), "want exactly one"},
		{"request with no key", "request", "one key", "a0", "want exactly one"},
		{"request with an unknown key", "request", "keys", enc(map[string]any{"ping": map[string]any{}}), "unknown field"},
		{"blocks request of count 0", "request", "count", enc(wire.Request{Blocks: &wire.BlocksRequest{Validator: v1, Count: 0}}), "count 0"},
		{"blocks request of count 513", "request", "count", enc(wire.Request{Blocks: &wire.BlocksRequest{Validator: v1, Count: 513}}), "count 513"},
		{"blocks request whose range overflows 64 bits", "request", "count", enc(wire.Request{Blocks: &wire.BlocksRequest{Validator: v1, From: math.MaxUint64, Count: 1}}), "overflows"},
		{"objects request of no CIDs", "request", "cids", enc(wire.Request{Objects: &wire.ObjectsRequest{CIDs: []codec.Link{}}}), "of 0 CIDs"},
		{"objects request with a null link", "request", "cids", enc(wire.Request{Objects: &wire.ObjectsRequest{CIDs: []codec.Link{{}}}}), "null link"},
		{"objects request with a raw-codec CID", "request", "cids", enc(wire.Request{Objects: &wire.ObjectsRequest{CIDs: []codec.Link{codec.LinkTo(rawCID)}}}), "CID 0"},
		{"status with heads in decreasing validator order", "request", "heads", enc(wire.Request{Status: status(func(s *wire.Status) { s.Heads[0], s.Heads[1] = s.Heads[1], s.Heads[0] })}), "strictly increasing"},
		{"status with one validator's head twice", "request", "heads", enc(wire.Request{Status: status(func(s *wire.Status) { s.Heads[1].Validator = v1 })}), "strictly increasing"},
		{"status with an all-zero genesis", "request", "genesis", enc(wire.Request{Status: status(func(s *wire.Status) { s.Genesis = &wire.Genesis{} })}), "all zeros"},
		{"status with netuid 65536", "request", "netuid", enc(wire.Request{Status: status(func(s *wire.Status) { s.NetUID = 1 << 16 })}), "16-bit"},
		{"status with a null fork proof link", "response", "cids", enc(wire.Response{Status: status(func(s *wire.Status) { s.Forks = []codec.Link{{}} })}), "fork proof 0"},

		{"error message of 1025 bytes", "response", "error message", enc(wire.Response{Error: &wire.ErrorResponse{Code: wire.CodeBusy, Message: strings.Repeat("e", 1025)}}), "at most 1024 bytes"},
		{"response with two keys", "response", "one key", enc(wire.Response{Objects: &wire.ObjectsResponse{Objects: [][]byte{}}, Error: &wire.ErrorResponse{Code: wire.CodeBusy, Message: ""}}), "want exactly one"},
		{"blocks response of 513 blocks", "response", "count", enc(wire.Response{Blocks: &wire.BlocksResponse{Blocks: make([][]byte, 513), Objects: [][]byte{}}}), "513 blocks"},
	}
}

// binaryUvarint is the unsigned LEB128 of n, as a frame's prefix.
func binaryUvarint(n uint64) []byte {
	var b []byte
	for n >= 0x80 {
		b = append(b, byte(n)|0x80)
		n >>= 7
	}
	return append(b, byte(n))
}

func checkSyncRejects(t *testing.T, cases []syncReject) {
	for _, c := range cases {
		raw, err := hex.DecodeString(c.Hex)
		if err != nil {
			t.Fatal(err)
		}
		switch c.Kind {
		case "request frame":
			_, err = wire.ReadFrame(bufio.NewReader(bytes.NewReader(raw)), wire.MaxRequestBytes)
		case "response frame":
			_, err = wire.ReadFrame(bufio.NewReader(bytes.NewReader(raw)), wire.MaxResponseBytes)
		case "request":
			_, err = wire.DecodeRequest(raw)
		case "response":
			_, err = wire.DecodeResponse(raw)
		default:
			t.Fatalf("%q: kind %q", c.Name, c.Kind)
		}
		switch {
		case err == nil:
			t.Errorf("%s %q (%s): accepted", c.Kind, c.Name, c.Rule)
		case !strings.Contains(err.Error(), c.want):
			t.Errorf("%s %q (%s): refused for another reason than %q: %v", c.Kind, c.Name, c.Rule, c.want, err)
		case c.want != "unexpected EOF" && !errors.Is(err, wire.ErrBadMessage):
			// A frame cut short is a transport error, not the peer's message.
			t.Errorf("%s %q: error does not wrap ErrBadMessage: %v", c.Kind, c.Name, err)
		}
	}
}
