package record_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// Fork proof format 1, of two format-1 blocks, was what every node made
// before block format 2. Such blocks name no network, so the proof no
// longer proves equivocation, but it stays checkable (spec/README.md,
// "Versioning"): it decodes and verifies by the rules it was made under,
// and says it is no evidence.

// v1Block signs k's format-1 block at height (linking a made-up parent
// above 0), told apart by timeMS.
func v1Block(t *testing.T, k *keys.Hotkey, height uint64, timeMS int64) []byte {
	t.Helper()
	h := record.Header{Format: record.BlockFormatV1, Validator: k.Public(), Height: height, TimeMS: timeMS, Checkpoint: record.Checkpoint{Root: record.EmptyRoot()}}
	if height > 0 {
		h.Prev = codec.LinkTo(codec.Sum([]byte("parent")))
	}
	_, raw, _, err := record.Sign(h, k)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// inOrder returns a and b ordered by binary CID, as a proof holds them.
func inOrder(a, b []byte) ([]byte, []byte) {
	if bytes.Compare(codec.Sum(a).Bytes(), codec.Sum(b).Bytes()) > 0 {
		return b, a
	}
	return a, b
}

// encodeV1 encodes a format-1 proof of k at height holding a and b as
// given: the code makes none, so the tests assemble them.
func encodeV1(t *testing.T, k *keys.Hotkey, height uint64, a, b []byte) []byte {
	t.Helper()
	raw, _, err := codec.Encode(&record.ForkProof{Format: record.ForkProofFormatV1, Validator: k.Public(), Height: height, A: a, B: b})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestForkProofV1Decodes(t *testing.T) {
	k := alice(t)
	a, b := inOrder(v1Block(t, k, 3, 1), v1Block(t, k, 3, 2))
	raw := encodeV1(t, k, 3, a, b)
	p, err := record.DecodeForkProof(raw)
	if err != nil {
		t.Fatalf("format-1 fork proof: %v", err)
	}
	if p.Format != record.ForkProofFormatV1 || p.Validator != k.Public() || p.Height != 3 || !bytes.Equal(p.A, a) || !bytes.Equal(p.B, b) {
		t.Fatalf("decoded %+v", p)
	}
	if p.ProvesEquivocation() {
		t.Error("a format-1 fork proof claims to prove equivocation")
	}
	if net, err := p.Network(); !errors.Is(err, record.ErrNotEvidence) || !strings.Contains(err.Error(), "name no network") {
		t.Errorf("Network() = %v, %v; want ErrNotEvidence naming no network", net, err)
	}
	ba, bb, err := p.Verify()
	if err != nil || !bytes.Equal(mustEncode(t, ba), a) || !bytes.Equal(mustEncode(t, bb), b) {
		t.Errorf("Verify returned other blocks (err %v)", err)
	}
	if again, _, err := p.Encode(); err != nil || !bytes.Equal(again, raw) {
		t.Errorf("a decoded format-1 proof does not re-encode to its bytes (err %v)", err)
	}

	// Format 2 of the same validator does prove it, and names its network.
	h, _ := header(t, k, 0)
	_, x, _, err := record.Sign(h, k)
	if err != nil {
		t.Fatal(err)
	}
	h.TimeMS++
	_, y, _, err := record.Sign(h, k)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := record.NewForkProof(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if net, err := p2.Network(); !p2.ProvesEquivocation() || err != nil || net != recordtest.Network {
		t.Errorf("format-2 proof: proves %v, network %s, %v", p2.ProvesEquivocation(), net, err)
	}
}

func mustEncode(t *testing.T, b *record.Block) []byte {
	t.Helper()
	raw, _, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestForkProofV1Rejects: each rule of a format-1 proof, broken once,
// fails with an error that names it.
func TestForkProofV1Rejects(t *testing.T) {
	k, bob := alice(t), recordtest.Hotkey(t, "//Bob")
	a, b := inOrder(v1Block(t, k, 0, 1), v1Block(t, k, 0, 2))
	valid := encodeV1(t, k, 0, a, b)

	// A format-1 header signed under the format-2 domain: the signature
	// covers another message than the block's.
	h := record.Header{Format: record.BlockFormatV1, Validator: k.Public(), TimeMS: 3, Checkpoint: record.Checkpoint{Root: record.EmptyRoot()}}
	v1msg, err := h.SigningBytes()
	if err != nil {
		t.Fatal(err)
	}
	sig, err := k.Sign(append([]byte(record.BlockDomain+"\x00"), v1msg[len(record.BlockDomainV1)+1:]...))
	if err != nil {
		t.Fatal(err)
	}
	wrongDomain := mustEncode(t, &record.Block{Header: h, Signature: sig})
	// A format-1 block whose signature is another block's.
	first, err := record.DecodeBlock(a)
	if err != nil {
		t.Fatal(err)
	}
	h.TimeMS = 4
	stolen := mustEncode(t, &record.Block{Header: h, Signature: first.Signature})

	fmt2, _ := header(t, k, 0)
	_, f2a, _, err := record.Sign(fmt2, k)
	if err != nil {
		t.Fatal(err)
	}
	fmt2.TimeMS++
	_, f2b, _, err := record.Sign(fmt2, k)
	if err != nil {
		t.Fatal(err)
	}

	pair := func(x, y []byte) [2][]byte { x, y = inOrder(x, y); return [2][]byte{x, y} }
	for _, c := range []struct {
		name   string
		height uint64
		blocks [2][]byte
		raw    []byte // instead of the proof of blocks
		format uint64 // 0: format 1
		want   error
		says   string
	}{
		{name: "the same block twice", blocks: [2][]byte{a, a}, want: record.ErrMalformed, says: "both blocks are"},
		{name: "blocks out of CID order", blocks: [2][]byte{b, a}, want: record.ErrMalformed, says: "not in CID order"},
		{name: "two validators", blocks: pair(a, v1Block(t, bob, 0, 1)), want: record.ErrMalformed, says: "proof names"},
		{name: "two heights", blocks: pair(a, v1Block(t, k, 1, 2)), want: record.ErrMalformed, says: "proof names"},
		{name: "another height named", height: 1, blocks: [2][]byte{a, b}, want: record.ErrMalformed, says: "proof names"},
		{name: "a block of format 2", blocks: pair(a, f2a), want: record.ErrMalformed, says: "holds blocks of format 1"},
		{name: "blocks of format 2", blocks: pair(f2a, f2b), want: record.ErrMalformed, says: "holds blocks of format 1"},
		{name: "signed under the format-2 domain", blocks: pair(a, wrongDomain), want: record.ErrBadSignature, says: "bad signature"},
		{name: "another block's signature", blocks: pair(a, stolen), want: record.ErrBadSignature, says: "bad signature"},
		{name: "a block with trailing bytes", blocks: pair(a, append(bytes.Clone(b), 0)), want: record.ErrMalformed, says: "fork proof block"},
		{name: "an unknown format", format: 3, blocks: [2][]byte{a, b}, want: record.ErrMalformed, says: "format 3"},
		{name: "trailing bytes", raw: append(bytes.Clone(valid), 0), want: record.ErrMalformed, says: "fork proof"},
		{name: "an unknown key", raw: append([]byte{valid[0] + 1}, append(bytes.Clone(valid[1:]), 0x61, 'z', 0x00)...), want: record.ErrMalformed, says: "fork proof"},
	} {
		t.Run(c.name, func(t *testing.T) {
			raw := c.raw
			if raw == nil {
				p := record.ForkProof{Format: c.format, Validator: k.Public(), Height: c.height, A: c.blocks[0], B: c.blocks[1]}
				if p.Format == 0 {
					p.Format = record.ForkProofFormatV1
				}
				if raw, _, err = codec.Encode(&p); err != nil {
					t.Fatal(err)
				}
			}
			_, err := record.DecodeForkProof(raw)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("got %v, want %v naming %q", err, c.want, c.says)
			}
		})
	}
}
