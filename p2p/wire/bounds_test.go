package wire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// The tests of this file hold the message and frame bounds of
// spec/limits.md ("Peers") at exactly the bound, accepted, and one past it,
// refused with an error naming the bound.

// sized returns the encoding of build(n) whose length is size, for a build
// whose encoding grows by one byte with n once n is at least 64 KiB (a
// byte or text string past the last change of its head's size).
func sized(t *testing.T, size int, build func(n int) any) []byte {
	t.Helper()
	const base = 64 << 10
	n := base + size - len(mustMarshal(t, build(base)))
	data := mustMarshal(t, build(n))
	if len(data) != size {
		t.Fatalf("built %d bytes, want %d", len(data), size)
	}
	return data
}

// wantBound fails t unless err wraps ErrBadMessage and names the bound.
func wantBound(t *testing.T, err error, bound int) {
	t.Helper()
	if want := fmt.Sprintf("max %d", bound); !errors.Is(err, ErrBadMessage) || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want ErrBadMessage naming %q", err, want)
	}
}

// checkFrames reads exact as one frame of at most max bytes, whole, and
// refuses a frame of one byte more from its length prefix alone: the body
// never arrives, the refusal names the bound, not the missing bytes.
func checkFrames(t *testing.T, exact []byte, max int) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteFrame(&buf, exact); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFrame(bufio.NewReader(&buf), max)
	if err != nil || !bytes.Equal(got, exact) {
		t.Fatalf("frame of exactly %d bytes: read %d bytes, err %v", max, len(got), err)
	}
	prefix := binary.AppendUvarint(nil, uint64(max+1))
	_, err = ReadFrame(bufio.NewReader(bytes.NewReader(prefix)), max)
	wantBound(t, err, max)
}

// TestRequestFrameBound: a request of exactly MaxRequestBytes is read as a
// frame and decoded; one of a byte more is refused by both. No request the
// checks allow reaches the bound on counts alone (8,192 CIDs are 336 KiB);
// the binding's peer ID, which only the binding's verification bounds,
// pads this one.
func TestRequestFrameBound(t *testing.T) {
	alice, _ := keys.FromURI("//Alice")
	request := func(n int) any {
		b := &Binding{BindingStatement: BindingStatement{Format: BindingFormat, NetUID: 1, Peer: make([]byte, n), Validator: alice.Public()}}
		return Request{Status: &Status{NetUID: 1, Heads: []Head{}, Forks: []codec.Link{}, Binding: b}}
	}
	exact := sized(t, MaxRequestBytes, request)
	checkFrames(t, exact, MaxRequestBytes)
	if _, err := DecodeRequest(exact); err != nil {
		t.Fatalf("request of exactly %d bytes: %v", MaxRequestBytes, err)
	}
	_, err := DecodeRequest(sized(t, MaxRequestBytes+1, request))
	wantBound(t, err, MaxRequestBytes)
}

// TestResponseFrameBound: a response of exactly MaxResponseBytes, eight
// objects of which seven are exactly MaxObjectBytes, is read as a frame and
// decoded; one of a byte more is refused by both. The frame's length takes
// all 4 varint bytes a prefix may have.
func TestResponseFrameBound(t *testing.T) {
	if n := len(binary.AppendUvarint(nil, MaxResponseBytes)); n != 4 {
		t.Fatalf("a frame of %d bytes has a %d-byte prefix, want the longest allowed, 4", MaxResponseBytes, n)
	}
	zeros := make([]byte, MaxObjectBytes+1)
	response := func(sizes ...int) []byte {
		objs := make([][]byte, len(sizes))
		for i, n := range sizes {
			objs[i] = zeros[:n]
		}
		return mustMarshal(t, Response{Objects: &ObjectsResponse{Objects: objs}})
	}
	// Every object of 64 KiB or more has a 5-byte head: the framing
	// measured on small ones is the framing of large ones. (Encoding 16 MiB
	// under the race detector takes most of a second: twice is enough.)
	const small = 64 << 10
	framing := len(response(small, small, small, small, small, small, small, small)) - 8*small
	last := MaxResponseBytes - framing - 7*MaxObjectBytes
	fill := func(last int) []byte {
		m := MaxObjectBytes
		return response(m, m, m, m, m, m, m, last)
	}
	exact := fill(last)
	if len(exact) != MaxResponseBytes {
		t.Fatalf("built %d bytes, want %d", len(exact), MaxResponseBytes)
	}
	checkFrames(t, exact, MaxResponseBytes)
	r, err := DecodeResponse(exact)
	if err != nil || len(r.Objects.Objects) != 8 {
		t.Fatalf("response of exactly %d bytes: %v", MaxResponseBytes, err)
	}
	_, err = DecodeResponse(fill(last + 1))
	wantBound(t, err, MaxResponseBytes)
}

// TestResponseItemBounds: a response's block of exactly
// record.MaxBlockBytes and object of exactly MaxObjectBytes are accepted,
// a byte more refused. The response checks only their sizes; the client
// decodes them as records.
func TestResponseItemBounds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		bound int
		r     func(n int) Response
	}{
		{"block", record.MaxBlockBytes, func(n int) Response {
			return Response{Blocks: &BlocksResponse{Blocks: [][]byte{make([]byte, n)}, Objects: [][]byte{}}}
		}},
		{"object of a blocks response", MaxObjectBytes, func(n int) Response {
			return Response{Blocks: &BlocksResponse{Blocks: [][]byte{}, Objects: [][]byte{make([]byte, n)}}}
		}},
		{"object", MaxObjectBytes, func(n int) Response {
			return Response{Objects: &ObjectsResponse{Objects: [][]byte{make([]byte, n)}}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := DecodeResponse(mustMarshal(t, tc.r(tc.bound))); err != nil {
				t.Fatalf("%s of exactly %d bytes: %v", tc.name, tc.bound, err)
			}
			_, err := DecodeResponse(mustMarshal(t, tc.r(tc.bound+1)))
			wantBound(t, err, tc.bound)
		})
	}
}

// TestGossipBound: a valid block message of exactly MaxGossipBytes, a
// signed block and the one transcript it links, is built with its object
// and decoded; one a byte longer is built without it (EncodeBlockMessage
// falls back to the block alone) and, sent anyway, refused.
func TestGossipBound(t *testing.T) {
	alice, _ := keys.FromURI("//Alice")
	message := func(n int) any {
		tr := recordtest.Transcript(alice.Public(), 0, n)
		raw, c, err := tr.Encode()
		if err != nil {
			t.Fatal(err)
		}
		h := record.Header{Format: record.BlockFormat, Net: recordtest.Network, Validator: alice.Public(), TimeMS: 1_700_000_000_000, Anchor: recordtest.Anchor(5)}
		h.Transcripts = []codec.Link{codec.LinkTo(c)}
		h.Checkpoint = record.CheckpointOf([]cid.Cid{c})
		_, block, _, err := record.Sign(h, alice)
		if err != nil {
			t.Fatal(err)
		}
		return BlockMessage{Block: block, Objects: [][]byte{raw}}
	}
	exact := sized(t, MaxGossipBytes, message)
	var bm BlockMessage
	if err := codec.Unmarshal(exact, &bm); err != nil {
		t.Fatal(err)
	}
	built, err := EncodeBlockMessage(bm.Block, bm.Objects)
	if err != nil || !bytes.Equal(built, exact) {
		t.Fatalf("EncodeBlockMessage of a message of exactly %d bytes dropped its objects (%d bytes, err %v)", MaxGossipBytes, len(built), err)
	}
	rb, err := DecodeBlockMessage(exact)
	if err != nil || len(rb.Objects) != 1 {
		t.Fatalf("block message of exactly %d bytes: %v", MaxGossipBytes, err)
	}

	over := sized(t, MaxGossipBytes+1, message)
	if err := codec.Unmarshal(over, &bm); err != nil {
		t.Fatal(err)
	}
	built, err = EncodeBlockMessage(bm.Block, bm.Objects)
	if err != nil {
		t.Fatal(err)
	}
	if rb, err := DecodeBlockMessage(built); err != nil || rb.Objects != nil {
		t.Fatalf("EncodeBlockMessage of a message of %d bytes kept its objects or failed: %v", MaxGossipBytes+1, err)
	}
	_, err = DecodeBlockMessage(over)
	if want := fmt.Sprintf("%d bytes, max %d", MaxGossipBytes+1, MaxGossipBytes); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("block message of %d bytes: err = %v, want one naming %q", MaxGossipBytes+1, err, want)
	}
}
