package record_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

func alice(t testing.TB) *keys.Hotkey { return recordtest.Hotkey(t, "//Alice") }
func bob(t testing.TB) *keys.Hotkey   { return recordtest.Hotkey(t, "//Bob") }

func TestTranscriptRoundTrip(t *testing.T) {
	tr := recordtest.Transcript(alice(t).Public(), 7, 0)
	raw, c, err := tr.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !c.Equals(codec.Sum(raw)) {
		t.Fatal("CID is not the hash of the bytes")
	}
	back, err := record.DecodeTranscript(raw)
	if err != nil {
		t.Fatal(err)
	}
	again, _, err := back.Encode()
	if err != nil || !bytes.Equal(again, raw) {
		t.Fatalf("re-encoding differs (err %v)", err)
	}
	if back.Challenge != tr.Challenge || back.Usage.CompletionTokens != 5 || back.Conversation[2].Content != tr.Conversation[2].Content {
		t.Fatalf("round trip lost data: %+v", back)
	}
	// No usage encodes as null and survives.
	tr.Usage = nil
	raw, _, err = tr.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if back, err = record.DecodeTranscript(raw); err != nil || back.Usage != nil {
		t.Fatalf("null usage: %v %+v", err, back)
	}
}

func TestTranscriptCheck(t *testing.T) {
	v := alice(t).Public()
	cases := []struct {
		name string
		edit func(*record.Transcript)
		want string
	}{
		{"format", func(tr *record.Transcript) { tr.Format = 3 }, "format 3"},
		{"format 2 without seed", func(tr *record.Transcript) { tr.Seed = nil }, "has no seed"},
		{"format 1 with seed", func(tr *record.Transcript) { tr.Format = record.TranscriptFormatV1 }, "records no seed"},
		{"seed counter", func(tr *record.Transcript) { tr.Seed.Counter++ }, "counter 2 derives seed"},
		{"seed anchor hash", func(tr *record.Transcript) { tr.Seed.Anchor.Hash[0] ^= 1 }, "derives seed"},
		{"seed of another validator", func(tr *record.Transcript) { tr.Validator = bob(t).Public() }, "derives seed"},
		{"env mismatch", func(tr *record.Transcript) { tr.Env = "sat" }, "disagrees with challenge"},
		{"version mismatch", func(tr *record.Transcript) { tr.EnvVersion = 2 }, "disagrees with challenge"},
		{"no validator", func(tr *record.Transcript) { tr.Validator = keys.PublicKey{} }, "validator is not set"},
		{"no miner", func(tr *record.Transcript) { tr.Miner.Hotkey = keys.PublicKey{} }, "miner hotkey"},
		{"no invocation", func(tr *record.Transcript) { tr.Invocation = record.InvocationID{} }, "invocation"},
		{"bad role", func(tr *record.Transcript) { tr.Conversation[0].Role = "System" }, "role"},
		{"empty role", func(tr *record.Transcript) { tr.Conversation[0].Role = "" }, "role"},
		{"role with the byte before a", func(tr *record.Transcript) { tr.Conversation[0].Role = "`" }, "characters from [a-z_]"},
		{"role with the byte after z", func(tr *record.Transcript) { tr.Conversation[0].Role = "{" }, "characters from [a-z_]"},
		{"too many messages", func(tr *record.Transcript) {
			tr.Conversation = make([]envs.Message, record.MaxMessages+1)
			for i := range tr.Conversation {
				tr.Conversation[i] = envs.Message{Role: "user", Content: "x"}
			}
		}, "messages, max"},
		{"conversation too big", func(tr *record.Transcript) {
			tr.Conversation[2].Content = strings.Repeat("y", record.MaxConversationBytes)
		}, "conversation exceeds"},
		{"long reason", func(tr *record.Transcript) { tr.Reason = strings.Repeat("r", record.MaxTextField+1) }, "reason has"},
		{"long model hash", func(tr *record.Transcript) { tr.Miner.ModelHash = make([]byte, 65) }, "model hash"},
		{"times", func(tr *record.Transcript) { tr.FinishedMS = tr.StartedMS - 1 }, "want 0 <= started <= finished"},
		{"negative time", func(tr *record.Transcript) { tr.StartedMS = -1 }, "want 0 <= started <= finished"},
		{"turn rewards", func(tr *record.Transcript) { tr.TurnRewards = make([]int64, record.MaxTurnRewards+1) }, "turn rewards"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := recordtest.Transcript(v, 1, 0)
			c.edit(&tr)
			_, _, err := tr.Encode()
			if err == nil || !errors.Is(err, record.ErrMalformed) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want ErrMalformed mentioning %q", err, c.want)
			}
		})
	}
}

func TestDecodeTranscriptRejects(t *testing.T) {
	tr := recordtest.Transcript(alice(t).Public(), 1, 0)
	raw, _, err := tr.Encode()
	if err != nil {
		t.Fatal(err)
	}
	// A transcript whose fields are fine for CBOR but break Check: encode
	// it with codec directly, bypassing Encode's check.
	bad := tr
	bad.Env = "other"
	badRaw, err := codec.Marshal(&bad)
	if err != nil {
		t.Fatal(err)
	}
	// A shortened invocation ID: byte string of 15 bytes where 16 belong.
	short := bytes.Replace(raw, append([]byte{0x50}, tr.Invocation[:]...), append([]byte{0x4f}, tr.Invocation[:15]...), 1)
	if bytes.Equal(short, raw) {
		t.Fatal("test setup: invocation bytes not found")
	}
	// Each refusal names what is wrong, not a symptom further on (a record
	// left empty by a failed parse and then refused for its format).
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"empty":          {nil, "unexpected EOF"},
		"trailing":       {append(append([]byte{}, raw...), 0), "1 trailing bytes"},
		"truncated":      {raw[:len(raw)-1], `field "turn_rewards": unexpected EOF`},
		"check fails":    {badRaw, "disagrees with challenge"},
		"short bytes":    {short, "invocation"},
		"not a map":      {[]byte{0x01}, "where a map belongs"},
		"oversized":      {make([]byte, record.MaxTranscriptBytes+1), fmt.Sprintf("max %d", record.MaxTranscriptBytes)},
		"unknown field":  {append([]byte{raw[0] + 1}, append(raw[1:], 0x61, 'z', 0x00)...), "want 20 fields"},
		"block as trans": {mustBlockBytes(t), "want 20 fields"},
	} {
		if _, err := record.DecodeTranscript(c.data); !errors.Is(err, record.ErrMalformed) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want ErrMalformed saying %q", name, err, c.want)
		}
	}
}

func mustBlockBytes(t testing.TB) []byte {
	k := alice(t)
	_, raw, _, err := record.Sign(record.Header{Format: 1, Validator: k.Public(), Checkpoint: record.Checkpoint{Root: record.EmptyRoot()}}, k)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func header(t testing.TB, k *keys.Hotkey, n int) (record.Header, map[cid.Cid][]byte) {
	t.Helper()
	h := record.Header{Format: record.BlockFormat, Net: recordtest.Network, Validator: k.Public(), TimeMS: 1_700_000_000_000, Anchor: recordtest.Anchor(5)}
	objs := map[cid.Cid][]byte{}
	var cids []cid.Cid
	for i := 0; i < n; i++ {
		tr := recordtest.Transcript(k.Public(), uint64(i), 0)
		raw, c, err := tr.Encode()
		if err != nil {
			t.Fatal(err)
		}
		objs[c] = raw
		cids = append(cids, c)
		h.Transcripts = append(h.Transcripts, codec.LinkTo(c))
	}
	h.Checkpoint = record.CheckpointOf(cids)
	return h, objs
}

func TestBlockSignVerify(t *testing.T) {
	k := alice(t)
	h, _ := header(t, k, 3)
	blk, raw, c, err := record.Sign(h, k)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Equals(codec.Sum(raw)) {
		t.Fatal("block CID is not the hash of the signed bytes")
	}
	back, err := record.DecodeBlock(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := back.VerifySignature(); err != nil {
		t.Fatal(err)
	}
	if back.Checkpoint != blk.Checkpoint || len(back.Transcripts) != 3 {
		t.Fatalf("round trip lost data")
	}
	// The signature covers the domain-separated header bytes exactly.
	msg, _ := back.SigningBytes()
	if !bytes.HasPrefix(msg, []byte(record.BlockDomain+"\x00")) || !keys.Verify(k.Public(), msg, back.Signature) {
		t.Fatal("signature is not over BlockDomain || 0x00 || header")
	}
	for name, edit := range map[string]func(*record.Block){
		"height":     func(b *record.Block) { b.TimeMS++ },
		"checkpoint": func(b *record.Block) { b.Checkpoint.Size++ },
		"anchor":     func(b *record.Block) { b.Anchor.Hash[0] ^= 1 },
		"validator":  func(b *record.Block) { b.Validator = bob(t).Public() },
		"signature":  func(b *record.Block) { b.Signature[5] ^= 1 },
	} {
		b := *back
		edit(&b)
		if err := b.VerifySignature(); !errors.Is(err, record.ErrBadSignature) {
			t.Errorf("%s altered: got %v, want ErrBadSignature", name, err)
		}
	}
	if _, _, _, err := record.Sign(h, bob(t)); err == nil {
		t.Fatal("signed a block with another validator's key")
	}
}

func TestBlockCheck(t *testing.T) {
	k := alice(t)
	good, _ := header(t, k, 2)
	link := good.Transcripts[0]
	cases := []struct {
		name string
		edit func(*record.Header)
		want string
	}{
		{"format", func(h *record.Header) { h.Format = 0 }, "format 0"},
		{"prev at height 0", func(h *record.Header) { h.Prev = link }, "only height 0"},
		{"no prev above 0", func(h *record.Header) { h.Height = 1 }, "only height 0"},
		{"size at height 0", func(h *record.Header) { h.Checkpoint.Size = 3 }, "checkpoint size"},
		{"size below count", func(h *record.Header) { h.Height, h.Prev, h.Checkpoint.Size = 1, link, 1 }, "checkpoint size"},
		{"duplicate link", func(h *record.Header) { h.Transcripts[1] = link }, "linked twice"},
		{"null link", func(h *record.Header) { h.Decisions = append(h.Decisions, codec.Link{}) }, "null link"},
		{"raw CID", func(h *record.Header) {
			h.Decisions = append(h.Decisions, codec.LinkTo(cid.NewCidV1(cid.Raw, link.Cid.Hash())))
		}, "not a CIDv1 dag-cbor"},
		{"too many", func(h *record.Header) {
			h.Decisions = make([]codec.Link, record.MaxDecisionsPerBlock+1)
		}, "decisions, max"},
		{"negative time", func(h *record.Header) { h.TimeMS = -1 }, "negative time"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := good
			h.Transcripts = append([]codec.Link(nil), good.Transcripts...)
			c.edit(&h)
			_, _, _, err := record.Sign(h, k)
			if !errors.Is(err, record.ErrMalformed) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want ErrMalformed mentioning %q", err, c.want)
			}
		})
	}
}

func TestDecodeBlockRejects(t *testing.T) {
	raw := mustBlockBytes(t)
	tr := recordtest.Transcript(alice(t).Public(), 1, 0)
	trRaw, _, _ := tr.Encode()
	for name, b := range map[string][]byte{
		"empty":      nil,
		"trailing":   append(append([]byte{}, raw...), 0),
		"truncated":  raw[:len(raw)-2],
		"transcript": trRaw,
		"oversized":  make([]byte, record.MaxBlockBytes+1),
	} {
		if _, err := record.DecodeBlock(b); !errors.Is(err, record.ErrMalformed) {
			t.Errorf("%s: got %v, want ErrMalformed", name, err)
		}
	}
}

func TestDuelID(t *testing.T) {
	d := record.Duel{Champion: alice(t).Public(), Contender: bob(t).Public(), Start: recordtest.Anchor(9)}
	id := d.ID()
	swapped := record.Duel{Champion: d.Contender, Contender: d.Champion, Start: d.Start}
	later := d
	later.Start.Number++
	if id.IsZero() || id == swapped.ID() || id == later.ID() || id != d.ID() {
		t.Fatal("duel ID does not depend on exactly (champion, contender, start)")
	}
}

func TestForkProof(t *testing.T) {
	k := alice(t)
	h, _ := header(t, k, 1)
	_, a, ca, _ := record.Sign(h, k)
	h.TimeMS++
	_, b, cb, _ := record.Sign(h, k)
	p1, err := record.NewForkProof(a, b)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := record.NewForkProof(b, a)
	if err != nil {
		t.Fatal(err)
	}
	raw1, c1, _ := p1.Encode()
	_, c2, _ := p2.Encode()
	if !c1.Equals(c2) {
		t.Fatal("fork proof depends on the order blocks were seen")
	}
	back, err := record.DecodeForkProof(raw1)
	if err != nil {
		t.Fatal(err)
	}
	x, y, _ := back.Verify()
	if got := []cid.Cid{codec.Sum(back.A), codec.Sum(back.B)}; !(got[0].Equals(ca) && got[1].Equals(cb)) && !(got[0].Equals(cb) && got[1].Equals(ca)) {
		t.Fatal("fork proof does not hold the two blocks")
	}
	if x.Height != y.Height || x.Validator != y.Validator {
		t.Fatal("fork proof blocks disagree on validator or height")
	}
	if _, err := record.NewForkProof(a, a); err == nil {
		t.Fatal("a block is not a fork of itself")
	}
	h.Height, h.Prev, h.Checkpoint.Size = 1, codec.LinkTo(ca), 2
	_, other, _, _ := record.Sign(h, k)
	if _, err := record.NewForkProof(a, other); err == nil {
		t.Fatal("blocks at different heights accepted as a fork")
	}
	forged := *back
	forged.B = append([]byte(nil), forged.B...)
	forged.B[len(forged.B)-3] ^= 1 // inside the signature
	if _, _, err := forged.Verify(); err == nil {
		t.Fatal("fork proof with a forged signature verified")
	}
}

func FuzzDecodeTranscript(f *testing.F) {
	v, _ := keys.FromURI("//Alice")
	for i := uint64(0); i < 3; i++ {
		// Both formats: format 2 (seed) and format 1 (no seed key).
		for _, tr := range []record.Transcript{recordtest.Transcript(v.Public(), i, int(i*10)), recordtest.TranscriptV1(v.Public(), i, int(i*10))} {
			raw, _, _ := tr.Encode()
			f.Add(raw)
		}
	}
	f.Add([]byte{0xa0})
	f.Add([]byte{0xb3})
	f.Add([]byte{0xb4})
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := record.DecodeTranscript(data)
		borrowed, errB := record.DecodeTranscriptBorrowed(data)
		if (err == nil) != (errB == nil) {
			t.Fatalf("DecodeTranscript says %v, DecodeTranscriptBorrowed %v", err, errB)
		}
		if err != nil {
			return
		}
		if !reflect.DeepEqual(tr, borrowed) {
			t.Fatalf("borrowed decode differs: %+v, copied %+v", borrowed, tr)
		}
		again, _, err := tr.Encode()
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("accepted input that does not re-encode to itself (err %v)", err)
		}
	})
}

func FuzzDecodeBlock(f *testing.F) {
	k, _ := keys.FromURI("//Alice")
	h, _ := header(f, k, 2)
	_, raw, _, _ := record.Sign(h, k)
	f.Add(raw)
	f.Add(mustBlockBytes(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := record.DecodeBlock(data)
		if err != nil {
			return
		}
		_ = b.VerifySignature()
		again, _, err := b.Encode()
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("accepted input that does not re-encode to itself (err %v)", err)
		}
	})
}

func FuzzDecodeForkProof(f *testing.F) {
	k, _ := keys.FromURI("//Alice")
	h, _ := header(f, k, 1)
	_, a, _, _ := record.Sign(h, k)
	h.TimeMS++
	_, b, _, _ := record.Sign(h, k)
	p, _ := record.NewForkProof(a, b)
	raw, _, _ := p.Encode()
	f.Add(raw)
	// Format 1, of format-1 blocks, which the code no longer makes.
	v1 := record.Header{Format: record.BlockFormatV1, Validator: k.Public(), Checkpoint: record.Checkpoint{Root: record.EmptyRoot()}}
	_, a, _, _ = record.Sign(v1, k)
	v1.TimeMS++
	_, b, _, _ = record.Sign(v1, k)
	if bytes.Compare(codec.Sum(a).Bytes(), codec.Sum(b).Bytes()) > 0 {
		a, b = b, a
	}
	raw, _, _ = codec.Encode(&record.ForkProof{Format: record.ForkProofFormatV1, Validator: k.Public(), A: a, B: b})
	f.Add(raw)
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := record.DecodeForkProof(data)
		if err != nil {
			return
		}
		// Anything accepted is two valid signatures at one height, in the
		// one encoding; of format 2 it names one network and proves
		// equivocation, of format 1 neither.
		if again, _, err := p.Encode(); err != nil || !bytes.Equal(again, data) {
			t.Fatalf("accepted input that does not re-encode to itself (err %v)", err)
		}
		_, err = p.Network()
		if p.ProvesEquivocation() != (p.Format == record.ForkProofFormat) || (err == nil) != p.ProvesEquivocation() {
			t.Fatalf("format %d: proves equivocation %v, network error %v", p.Format, p.ProvesEquivocation(), err)
		}
	})
}

func TestCheckDecision(t *testing.T) {
	link, _ := codec.Marshal(map[string]any{"l": codec.LinkTo(codec.Sum([]byte("x"))), "n": -3, "s": []any{"a", []byte{1}, true, nil}})
	if err := record.CheckDecision(link); err != nil {
		t.Fatalf("valid decision refused: %v", err)
	}
	for name, b := range map[string][]byte{
		"float":          {0xa1, 0x61, 'f', 0xfb, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0},
		"integer key":    {0xa1, 0x01, 0x02},
		"other tag":      {0xc1, 0x01},
		"non-canonical":  {0xa1, 0x61, 'a', 0x18, 0x01},
		"trailing bytes": {0x01, 0x01},
	} {
		if err := record.CheckDecision(b); !errors.Is(err, record.ErrMalformed) {
			t.Errorf("%s: got %v", name, err)
		}
	}
}

func FuzzCheckDecision(f *testing.F) {
	seed, _ := codec.Marshal(map[string]any{"kind": "x", "links": []any{codec.LinkTo(codec.Sum(nil))}})
	f.Add(seed)
	f.Add([]byte{0xa1, 0x01, 0x02})
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = record.CheckDecision(data)
	})
}
