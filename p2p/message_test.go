package p2p

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ipfs/go-cid"
	pb "github.com/libp2p/go-libp2p-pubsub/pb"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// testChain appends blocks of per transcripts (replies padded to pad bytes)
// for key in a fresh store and returns the store.
func testChain(t testing.TB, key *keys.Hotkey, blocks, per, pad int) *ledger.Store {
	t.Helper()
	s, err := ledger.Open(t.TempDir(), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	appendChain(t, s, key, blocks, per, pad)
	return s
}

// appendChain writes key's chain of blocks of per transcripts, each padded
// by pad bytes, into s.
func appendChain(t testing.TB, s *ledger.Store, key *keys.Hotkey, blocks, per, pad int) {
	t.Helper()
	a, err := s.NewAppender(key)
	if err != nil {
		t.Fatal(err)
	}
	n := uint64(0)
	for range blocks {
		var ts []record.Transcript
		for range per {
			ts = append(ts, recordtest.Transcript(key.Public(), n, pad))
			n++
		}
		if _, err := a.Append(context.Background(), recordtest.Anchor(1), ts, nil); err != nil {
			t.Fatal(err)
		}
	}
}

func blockAndObjects(t testing.TB, s *ledger.Store, v keys.PublicKey, h uint64) (ledger.StoredBlock, [][]byte) {
	t.Helper()
	b, err := s.BlockAt(v, h)
	if err != nil {
		t.Fatal(err)
	}
	var objs [][]byte
	for _, l := range wire.Links(b.Block) {
		raw, err := s.Object(l)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, raw)
	}
	return b, objs
}

func TestTopicNames(t *testing.T) {
	if got := wire.BlocksTopic(120); got != "/affine-ledger/120/blocks/1" {
		t.Errorf("BlocksTopic(120) = %q", got)
	}
	if got := wire.ForksTopic(0); got != "/affine-ledger/0/forks/1" {
		t.Errorf("ForksTopic(0) = %q", got)
	}
}

func TestMessageIDIsTheDataCID(t *testing.T) {
	data := []byte("any message")
	id := wire.MessageID(&pb.Message{Data: data})
	_, c, err := cid.CidFromBytes([]byte(id))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Equals(codec.Sum(data)) {
		t.Fatalf("message ID %s, want %s", c, codec.Sum(data))
	}
	if wire.MessageID(&pb.Message{Data: []byte("any messagf")}) == id {
		t.Fatal("different data, same ID")
	}
}

func TestBlockMessageRoundTrip(t *testing.T) {
	key, _ := keys.FromURI("//Alice")
	s := testChain(t, key, 2, 3, 0)
	b, objs := blockAndObjects(t, s, key.Public(), 1)
	data, err := wire.EncodeBlockMessage(b.Raw, objs)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := wire.DecodeBlockMessage(data)
	if err != nil {
		t.Fatal(err)
	}
	if !rb.CID.Equals(b.CID) || rb.Height != 1 || !bytes.Equal(rb.Raw, b.Raw) || len(rb.Objects) != 3 {
		t.Fatalf("decoded %s height %d with %d objects", rb.CID, rb.Height, len(rb.Objects))
	}
	for i, l := range wire.Links(b.Block) {
		if !bytes.Equal(rb.Objects[l], objs[i]) {
			t.Fatalf("object %d differs", i)
		}
	}
}

func TestBlockMessageFallsBackToTheBlockAlone(t *testing.T) {
	key, _ := keys.FromURI("//Alice")
	// Three transcripts of ~400 kB: together over MaxGossipBytes.
	s := testChain(t, key, 1, 3, 400_000)
	b, objs := blockAndObjects(t, s, key.Public(), 0)
	data, err := wire.EncodeBlockMessage(b.Raw, objs)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > wire.MaxGossipBytes {
		t.Fatalf("message of %d bytes", len(data))
	}
	rb, err := wire.DecodeBlockMessage(data)
	if err != nil {
		t.Fatal(err)
	}
	if rb.Objects != nil {
		t.Fatalf("objects sent although they do not fit")
	}
	// All or none: one such transcript alone fits and is sent.
	s1 := testChain(t, key, 1, 1, 400_000)
	b1, objs1 := blockAndObjects(t, s1, key.Public(), 0)
	data1, _ := wire.EncodeBlockMessage(b1.Raw, objs1)
	if rb1, err := wire.DecodeBlockMessage(data1); err != nil || len(rb1.Objects) != 1 {
		t.Fatalf("a block whose objects fit: %v", err)
	}
}

func TestDecodeBlockMessageRejects(t *testing.T) {
	key, _ := keys.FromURI("//Alice")
	s := testChain(t, key, 1, 2, 0)
	b, objs := blockAndObjects(t, s, key.Public(), 0)
	enc := func(block []byte, objects [][]byte) []byte {
		data, err := codec.Marshal(wire.BlockMessage{Block: block, Objects: objects})
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	badSig := append([]byte(nil), b.Raw...)
	badSig[len(badSig)-3] ^= 0x40
	altered := append([]byte(nil), objs[0]...)
	altered[len(altered)-1] ^= 1
	nonCanonical := append(enc(b.Raw, objs), 0x00)
	for _, tc := range []struct {
		name, data, want string
	}{
		{"not CBOR", "\xff\xff", "block message"},
		{"trailing bytes", string(nonCanonical), "trailing"},
		{"bad signature", string(enc(badSig, objs)), "bad signature"},
		{"not a block", string(enc([]byte{0xa0}, nil)), "block"},
		{"some objects only", string(enc(b.Raw, objs[:1])), "1 objects, the block links 2"},
		{"objects out of order", string(enc(b.Raw, [][]byte{objs[1], objs[0]})), "object 0"},
		{"altered object", string(enc(b.Raw, [][]byte{altered, objs[1]})), "object 0"},
		{"oversized", strings.Repeat("x", wire.MaxGossipBytes+1), "max"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := wire.DecodeBlockMessage([]byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}
