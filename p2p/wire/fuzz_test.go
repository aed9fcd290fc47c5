package wire

import (
	"bufio"
	"bytes"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// Seeds shared by the decoders' fuzz targets: valid messages of each kind.
func seeds(f *testing.F) {
	alice, _ := keys.FromURI("//Alice")
	c := codec.Sum([]byte("x"))
	c1 := codec.LinkTo(c)
	for _, v := range []any{
		Request{Status: &Status{NetUID: 1, Genesis: GenesisOf(recordtest.Network), Heads: []Head{{Validator: alice.Public(), Height: 2, CID: codec.LinkTo(c)}}, Forks: []codec.Link{}}},
		Response{Status: &Status{NetUID: 1, Heads: []Head{}, Forks: []codec.Link{c1}}},
		Request{Blocks: &BlocksRequest{Validator: alice.Public(), From: 1, Count: 3}},
		Request{Objects: &ObjectsRequest{CIDs: []codec.Link{codec.LinkTo(c)}}},
		Response{Blocks: &BlocksResponse{Blocks: [][]byte{{0xa0}}, Objects: [][]byte{}}},
		Response{Objects: &ObjectsResponse{Objects: [][]byte{[]byte("o")}}},
		Response{Error: &ErrorResponse{Code: CodeBusy, Message: "busy"}},
		BlockMessage{Block: []byte{0xa0}, Objects: [][]byte{}},
		signedBlockMessage(f, alice),
	} {
		data, err := codec.Marshal(v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte{})
	f.Add([]byte{0xa0})
}

func FuzzDecodeRequest(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeRequest(data)
		if err != nil {
			return
		}
		// Whatever decodes re-encodes to the same bytes: it is canonical.
		if again, err := codec.Marshal(r); err != nil || !bytes.Equal(again, data) {
			t.Fatalf("accepted %x, re-encodes to %x (%v)", data, again, err)
		}
	})
}

func FuzzDecodeResponse(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeResponse(data)
		if err != nil {
			return
		}
		if again, err := codec.Marshal(r); err != nil || !bytes.Equal(again, data) {
			t.Fatalf("accepted %x, re-encodes to %x (%v)", data, again, err)
		}
	})
}

func FuzzDecodeBlockMessage(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if rb, err := DecodeBlockMessage(data); err == nil && rb.VerifySignature() != nil {
			t.Fatalf("accepted a block whose signature does not verify")
		}
	})
}

func FuzzReadFrame(f *testing.F) {
	f.Add([]byte{0x03, 'a', 'b', 'c'})
	f.Add([]byte{0x80, 0x01})
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f})
	f.Fuzz(func(t *testing.T, data []byte) {
		const limit = 1 << 16
		got, err := ReadFrame(bufio.NewReader(bytes.NewReader(data)), limit)
		if err != nil {
			return
		}
		if len(got) > limit {
			t.Fatalf("frame of %d bytes over the %d limit", len(got), limit)
		}
		var buf bytes.Buffer
		WriteFrame(&buf, got)
		if !bytes.HasPrefix(data, buf.Bytes()) {
			t.Fatalf("read %x from %x, which does not start with its frame %x", got, data, buf.Bytes())
		}
	})
}

// signedBlockMessage is a valid gossip message: a block of two transcripts,
// signed, with both. Mutations of its objects reach the checks that run
// only once the signature has verified.
func signedBlockMessage(f *testing.F, k *keys.Hotkey) BlockMessage {
	h := record.Header{Format: record.BlockFormat, Net: recordtest.Network, Validator: k.Public(), TimeMS: 1_700_000_000_000, Anchor: recordtest.Anchor(5)}
	var objects [][]byte
	var cids []cid.Cid
	for i := range 2 {
		tr := recordtest.Transcript(k.Public(), uint64(i), 0)
		raw, c, err := tr.Encode()
		if err != nil {
			f.Fatal(err)
		}
		objects = append(objects, raw)
		cids = append(cids, c)
	}
	h.Transcripts = codec.LinksTo(cids)
	h.Checkpoint = record.CheckpointOf(cids)
	_, block, _, err := record.Sign(h, k)
	if err != nil {
		f.Fatal(err)
	}
	m := BlockMessage{Block: block, Objects: objects}
	data, err := codec.Marshal(m)
	if err != nil {
		f.Fatal(err)
	}
	if rb, err := DecodeBlockMessage(data); err != nil || len(rb.Objects) != 2 {
		f.Fatalf("the signed seed does not decode with its objects: %v", err)
	}
	return m
}
