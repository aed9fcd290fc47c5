package ledger_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/ipfs/go-cid"
	"github.com/multiformats/go-multihash"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
)

// The reject vectors of spec/vectors/ledger.json: records that break one
// rule of spec/ledger.md each, built from the valid vectors by changing
// what breaks it and nothing else. Blocks are signed by their validator's
// key over their own signing message (with the signatures stored in the
// file, as vectorChain), so a signature fails only where the rule is the
// signature's.

// vectorReject is one record a conforming implementation refuses.
type vectorReject struct {
	Name string `json:"name"`
	// Kind says what the bytes are offered as: "transcript", "block"
	// (alone), "block after blocks[0]" (the next block of the vector
	// chain, whose parent is blocks[0]; the transcripts and decision it
	// links are the vectors'), or "fork proof".
	Kind string `json:"kind"`
	// Rule names the rule broken, as spec/ledger.md's Vectors section
	// lists them; Section is the section of spec/ledger.md stating it.
	Rule    string `json:"rule"`
	Section string `json:"section"`
	Hex     string `json:"hex"`
	// want is a fragment of the Go error that refuses it.
	want string
}

const (
	kindTranscript = "transcript"
	kindBlock      = "block"
	kindNextBlock  = "block after blocks[0]"
	kindForkProof  = "fork proof"
)

// rejectBuilder builds reject vectors from the valid ones.
type rejectBuilder struct {
	t      *testing.T
	k      *keys.Hotkey
	update bool
	// stored holds the signatures of each stored reject case, by name.
	stored map[string][]keys.Signature
	out    []vectorReject
}

// storedSignatures collects the signatures of the blocks a stored reject
// case holds: its own, or those of a fork proof's two blocks.
func storedSignatures(cases []vectorReject) map[string][]keys.Signature {
	out := map[string][]keys.Signature{}
	var walk func(name string, raw []byte)
	walk = func(name string, raw []byte) {
		var m map[string]any
		if codec.Unmarshal(raw, &m) != nil {
			return
		}
		if s, ok := m["sig"].([]byte); ok && len(s) == len(keys.Signature{}) {
			out[name] = append(out[name], keys.Signature(s))
		}
		for _, k := range []string{"a", "b"} {
			if b, ok := m[k].([]byte); ok {
				walk(name, b)
			}
		}
	}
	for _, c := range cases {
		if raw, err := hex.DecodeString(c.Hex); err == nil {
			walk(c.Name, raw)
		}
	}
	return out
}

// sign signs msg for the case name, with a stored signature of that case
// if one verifies.
func (r *rejectBuilder) sign(name string, msg []byte) keys.Signature {
	r.t.Helper()
	for _, s := range r.stored[name] {
		if keys.Verify(r.k.Public(), msg, s) {
			return s
		}
	}
	if !r.update {
		r.t.Fatalf("reject %q: no stored signature verifies over the signing message this code derives", name)
	}
	s, err := r.k.Sign(msg)
	if err != nil {
		r.t.Fatal(err)
	}
	return s
}

func (r *rejectBuilder) add(kind, name, section, rule, want string, raw []byte) {
	r.out = append(r.out, vectorReject{Name: name, Kind: kind, Rule: rule, Section: section, Hex: hex.EncodeToString(raw), want: want})
}

// marshal encodes v as it is, checking nothing.
func (r *rejectBuilder) marshal(v any) []byte {
	r.t.Helper()
	b, err := codec.Marshal(v)
	if err != nil {
		r.t.Fatal(err)
	}
	return b
}

// asMap decodes a record into a generic map, to change its keys.
func (r *rejectBuilder) asMap(raw []byte) map[string]any {
	r.t.Helper()
	var m map[string]any
	if err := codec.Unmarshal(raw, &m); err != nil {
		r.t.Fatal(err)
	}
	return m
}

// block signs h (unchecked) for the case name and returns its bytes.
func (r *rejectBuilder) block(name string, h record.Header) []byte {
	r.t.Helper()
	msg, err := h.SigningBytes()
	if err != nil {
		r.t.Fatal(err)
	}
	b := &record.Block{Header: h, Signature: r.sign(name, msg)}
	raw, _, err := b.Encode()
	if err != nil {
		r.t.Fatal(err)
	}
	return raw
}

// blockMap signs a block given as a generic map (its keys changed) under
// the domain of format format, and returns its bytes.
func (r *rejectBuilder) blockMap(name string, format uint64, m map[string]any) []byte {
	r.t.Helper()
	delete(m, "sig")
	domain := record.BlockDomain
	if format == record.BlockFormatV1 {
		domain = record.BlockDomainV1
	}
	msg := append(append([]byte(domain), 0), r.marshal(m)...)
	s := r.sign(name, msg)
	m["sig"] = s[:]
	return r.marshal(m)
}

// forkProof returns the bytes of a fork proof of a and b, in that order.
func (r *rejectBuilder) forkProof(format uint64, v keys.PublicKey, height uint64, a, b []byte) []byte {
	return r.marshal(&record.ForkProof{Format: format, Validator: v, Height: height, A: a, B: b})
}

// cidOrder returns a and b ordered as a fork proof holds them.
func cidOrder(a, b []byte) ([]byte, []byte) {
	if bytes.Compare(codec.Sum(a).Bytes(), codec.Sum(b).Bytes()) > 0 {
		return b, a
	}
	return a, b
}

// buildRejects returns the reject vectors, given the valid ones: the
// format-2 transcripts and format-1 transcript 0, the two format-2
// headers, the format-1 header of block 0 and the other block of the
// format-2 fork proof.
func buildRejects(t *testing.T, k *keys.Hotkey, stored []vectorReject, update bool, out *ledgerVectors, headers []record.Header) []vectorReject {
	r := &rejectBuilder{t: t, k: k, update: update, stored: storedSignatures(stored)}
	unhexT := func(s string) []byte {
		b, err := hex.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	trRaw := unhexT(out.Transcripts[0].Hex)
	trV1Raw := unhexT(out.TranscriptsV1[0].Hex)
	base, err := record.DecodeTranscript(trRaw)
	if err != nil {
		t.Fatal(err)
	}
	tr := func(change func(*record.Transcript)) []byte {
		c := *base
		c.Conversation = append([]envs.Message(nil), base.Conversation...)
		seed := *base.Seed
		c.Seed = &seed
		change(&c)
		return r.marshal(&c)
	}
	const trSection = "#transcript"
	addT := func(name, rule, want string, raw []byte) { r.add(kindTranscript, name, trSection, rule, want, raw) }

	m := r.asMap(trRaw)
	m["extra"] = uint64(0)
	addT("unknown key", "keys", "map head", r.marshal(m))
	m = r.asMap(trRaw)
	delete(m, "error")
	addT("missing key (error)", "keys", "does not come next", r.marshal(m))
	m = r.asMap(trV1Raw)
	m["v"] = uint64(2)
	r.add(kindTranscript, "v 2 with the 19 keys of format 1 (no seed)", "#format-1", "layout", "has no seed", r.marshal(m))
	m = r.asMap(trRaw)
	m["v"] = uint64(1)
	r.add(kindTranscript, "v 1 with the 20 keys of format 2 (a seed)", "#format-1", "layout", "format 1 has none", r.marshal(m))
	addT("v 3", "format", "format 3", tr(func(c *record.Transcript) { c.Format = 3 }))
	addT("role with an upper-case letter", "role", "role", tr(func(c *record.Transcript) { c.Conversation[2].Role = "Assistant" }))
	addT("empty role", "role", "role", tr(func(c *record.Transcript) { c.Conversation[0].Role = "" }))
	addT("role of 17 characters", "role", "role", tr(func(c *record.Transcript) { c.Conversation[0].Role = strings.Repeat("a", 17) }))
	addT("role with a digit", "role", "role", tr(func(c *record.Transcript) { c.Conversation[0].Role = "user2" }))
	addT("all-zero validator (challenge derived for it)", "validator zero", "validator is not set", tr(func(c *record.Transcript) {
		c.Validator = keys.PublicKey{}
		id, err := c.Seed.Derive(c.Validator, c.Env, c.EnvVersion)
		if err != nil {
			t.Fatal(err)
		}
		c.Challenge = id
	}))
	addT("all-zero invocation", "invocation zero", "invocation ID is not set", tr(func(c *record.Transcript) { c.Invocation = record.InvocationID{} }))
	addT("all-zero miner hotkey", "miner hotkey zero", "miner hotkey is not set", tr(func(c *record.Transcript) { c.Miner.Hotkey = keys.PublicKey{} }))
	addT("started_ms after finished_ms", "times", "want 0 <= started <= finished", tr(func(c *record.Transcript) { c.StartedMS = c.FinishedMS + 1 }))
	addT("negative started_ms", "times", "want 0 <= started <= finished", tr(func(c *record.Transcript) { c.StartedMS = -1 }))
	addT("env disagrees with the challenge ID", "env", "disagrees with challenge", tr(func(c *record.Transcript) { c.Env = "sat" }))
	addT("env_version disagrees with the challenge ID", "env", "disagrees with challenge", tr(func(c *record.Transcript) { c.EnvVersion = 2 }))
	addT("seed counter does not derive the challenge", "seed", "derives seed", tr(func(c *record.Transcript) { c.Seed.Counter++ }))
	addT("reason of 4097 bytes", "text length", "reason has 4097 bytes", tr(func(c *record.Transcript) { c.Reason = strings.Repeat("r", 4097) }))
	addT("model_hash of 65 bytes", "model hash length", "model hash has 65 bytes", tr(func(c *record.Transcript) { c.Miner.ModelHash = make(record.Bytes, 65) }))
	addT("257 messages", "messages", "257 messages", tr(func(c *record.Transcript) {
		c.Conversation = make([]envs.Message, 257)
		for i := range c.Conversation {
			c.Conversation[i] = envs.Message{Role: "user", Content: "x"}
		}
	}))
	addT("257 turn rewards", "turn rewards", "257 turn rewards", tr(func(c *record.Transcript) { c.TurnRewards = make([]int64, 257) }))
	m = r.asMap(trRaw)
	m["env_version"] = uint64(1 << 16)
	addT("env_version past u16", "range", "overflows 16 bits", r.marshal(m))

	// Blocks, each signed over its own header.
	const blSection = "#block"
	h0, h1 := headers[0], headers[1]
	h1.Prev = codec.LinkTo(codec.Sum(unhexT(out.Blocks[0].Hex)))
	hb := func(h record.Header, change func(*record.Header)) record.Header {
		h.Transcripts = append([]codec.Link(nil), h.Transcripts...)
		h.Decisions = append([]codec.Link(nil), h.Decisions...)
		change(&h)
		return h
	}
	addB := func(name, rule, want string, h record.Header) {
		r.add(kindBlock, name, blSection, rule, want, r.block(name, h))
	}
	b0 := unhexT(out.Blocks[0].Hex)
	name := "unknown key"
	m = r.asMap(b0)
	m["extra"] = uint64(0)
	r.add(kindBlock, name, blSection, "keys", "map head", r.blockMap(name, record.BlockFormat, m))
	name = "missing key (decisions)"
	m = r.asMap(b0)
	delete(m, "decisions")
	r.add(kindBlock, name, blSection, "keys", "does not come next", r.blockMap(name, record.BlockFormat, m))
	name = "v 1 with net (the layout of format 2)"
	m = r.asMap(b0)
	m["v"] = uint64(1)
	r.add(kindBlock, name, "#format-1-blocks", "layout", "format 1 with a net key", r.blockMap(name, record.BlockFormatV1, m))
	name = "v 2 without net (the layout of format 1)"
	m = r.asMap(unhexT(out.BlocksV1[0].Hex))
	m["v"] = uint64(2)
	r.add(kindBlock, name, "#format-1-blocks", "layout", "layout of format 1", r.blockMap(name, record.BlockFormat, m))
	addB("v 3", "format", "format 3", hb(h0, func(h *record.Header) { h.Format = 3 }))
	addB("all-zero validator (signed by //Alice)", "validator zero", "validator is not set", hb(h0, func(h *record.Header) { h.Validator = keys.PublicKey{} }))
	addB("all-zero genesis", "genesis zero", "genesis hash is not set", hb(h0, func(h *record.Header) { h.Net.Genesis = record.Hash{} }))
	addB("prev at height 0", "prev", "only height 0 has no previous block", hb(h0, func(h *record.Header) { h.Prev = h1.Prev }))
	addB("null prev at height 1", "prev", "only height 0 has no previous block", hb(h1, func(h *record.Header) { h.Prev = codec.Link{} }))
	addB("negative time_ms", "time", "negative time", hb(h0, func(h *record.Header) { h.TimeMS = -1 }))
	addB("transcript linked twice", "links twice", "linked twice", hb(h0, func(h *record.Header) {
		h.Transcripts[1] = h.Transcripts[0]
		h.Checkpoint = record.CheckpointOf(h.TranscriptCIDs())
	}))
	addB("one CID as a transcript and a decision", "links twice", "linked twice", hb(h1, func(h *record.Header) { h.Decisions[0] = h.Transcripts[0] }))
	addB("null transcript link", "link address", "null link", hb(h1, func(h *record.Header) { h.Transcripts[0] = codec.Link{} }))
	raw, err := cid.V1Builder{Codec: cid.Raw, MhType: multihash.SHA2_256}.Sum([]byte("not dag-cbor"))
	if err != nil {
		t.Fatal(err)
	}
	addB("transcript link of codec raw", "link address", "not a CIDv1 dag-cbor address", hb(h1, func(h *record.Header) { h.Transcripts[0] = codec.LinkTo(raw) }))
	blake, err := cid.V1Builder{Codec: cid.DagCBOR, MhType: multihash.BLAKE2B_MIN + 31}.Sum([]byte("not sha2-256"))
	if err != nil {
		t.Fatal(err)
	}
	addB("decision link of blake2b-256", "link address", "not a sha2-256 address", hb(h1, func(h *record.Header) { h.Decisions[0] = codec.LinkTo(blake) }))
	addB("checkpoint size at height 0 past its transcripts", "checkpoint size", "checkpoint size 3 with 2 transcripts at height 0", hb(h0, func(h *record.Header) { h.Checkpoint.Size = 3 }))
	addB("checkpoint size below its transcripts", "checkpoint size", "checkpoint size 0 with 1 transcripts at height 1", hb(h1, func(h *record.Header) { h.Checkpoint.Size = 0 }))
	// The signature is the rule: the header is valid, the signature is
	// not over it.
	msg, err := h0.SigningBytes()
	if err != nil {
		t.Fatal(err)
	}
	v1msg := append([]byte(record.BlockDomainV1), msg[len(record.BlockDomain):]...)
	bad := &record.Block{Header: h0, Signature: r.sign("signed under the format-1 domain", v1msg)}
	rawBlock, _, err := bad.Encode()
	if err != nil {
		t.Fatal(err)
	}
	r.add(kindBlock, "signed under the format-1 domain", "#block", "signature", "signature", rawBlock)
	bad.Signature = r.sign("signature of the block at height 1", unhexT(out.Blocks[1].SigningMessage))
	rawBlock, _, _ = bad.Encode()
	r.add(kindBlock, "signature of the block at height 1", "#block", "signature", "signature", rawBlock)

	// The next block of the chain, valid alone, that does not extend
	// blocks[0] (spec/ledger.md#validity-of-a-chain).
	const chSection = "#validity-of-a-chain"
	addN := func(name, rule, want string, h record.Header) {
		r.add(kindNextBlock, name, chSection, rule, want, r.block(name, h))
	}
	addN("prev is not blocks[0]", "parent", "prev links", hb(h1, func(h *record.Header) { h.Prev = codec.LinkTo(codec.Sum(unhexT(out.Blocks[1].Hex))) }))
	addN("time_ms before the parent's", "parent", "before the parent's", hb(h1, func(h *record.Header) { h.TimeMS = h0.TimeMS - 1 }))
	addN("anchor number below the parent's", "parent", "anchor", hb(h1, func(h *record.Header) { h.Anchor.Number = h0.Anchor.Number - 1 }))
	addN("checkpoint size not the parent's plus its transcripts", "checkpoint", "checkpoint", hb(h1, func(h *record.Header) { h.Checkpoint.Size++ }))
	addN("checkpoint root not the log's", "checkpoint", "checkpoint", hb(h1, func(h *record.Header) { h.Checkpoint.Root = sha256.Sum256([]byte("not the root")) }))

	// Fork proofs.
	const fpSection = "#fork-proof"
	v := k.Public()
	fp := unhexT(out.ForkProofs[0].Hex)
	p, err := record.DecodeForkProof(fp)
	if err != nil {
		t.Fatal(err)
	}
	addF := func(name, rule, want string, raw []byte) { r.add(kindForkProof, name, fpSection, rule, want, raw) }
	addF("blocks in the wrong CID order", "CID order", "CID order", r.forkProof(2, v, 0, p.B, p.A))
	addF("one block twice", "CID order", "both blocks are", r.forkProof(2, v, 0, p.A, p.A))
	addF("proof names height 1", "validator or height", "proof names", r.forkProof(2, v, 1, p.A, p.B))
	bobKey := bob(t).Public()
	addF("proof names another validator", "validator or height", "proof names", r.forkProof(2, bobKey, 0, p.A, p.B))
	addF("v 3", "format", "format 3", r.forkProof(3, v, 0, p.A, p.B))
	name = "blocks of two networks"
	other := h0
	other.Net.Netuid++
	a, b := cidOrder(b0, r.block(name, other))
	addF(name, "two networks", "two networks", r.forkProof(2, v, 0, a, b))
	v1b0 := unhexT(out.BlocksV1[0].Hex)
	a, b = cidOrder(b0, v1b0)
	addF("format 2 of a format-2 and a format-1 block", "block format", "names no network", r.forkProof(2, v, 0, a, b))
	a, b = cidOrder(v1b0, unhexT(out.ForkProofs[1].Other.Hex))
	addF("format 2 of two format-1 blocks", "block format", "names no network", r.forkProof(2, v, 0, a, b))
	addF("format 1 of two format-2 blocks", "block format", "holds blocks of format 1", r.forkProof(1, v, 0, p.A, p.B))
	forged, err := record.DecodeBlock(p.B)
	if err != nil {
		t.Fatal(err)
	}
	forged.Signature[0] ^= 1
	fb, _, err := forged.Encode()
	if err != nil {
		t.Fatal(err)
	}
	a, b = cidOrder(p.A, fb)
	addF("a block with an altered signature", "signature", "signature", r.forkProof(2, v, 0, a, b))
	return r.out
}

// checkRejects asserts that the Go implementation refuses every reject
// vector for its rule: a record decoder, a block's signature check, a
// store holding blocks[0] and the vector objects, or the fork proof
// decoder.
func checkRejects(t *testing.T, cases []vectorReject, out *ledgerVectors) {
	objs := map[cid.Cid][]byte{}
	for _, r := range append(append([]vectorRecord(nil), out.Transcripts...), out.Decisions...) {
		b, _ := hex.DecodeString(r.Hex)
		objs[codec.Sum(b)] = b
	}
	b0, _ := hex.DecodeString(out.Blocks[0].Hex)
	names := map[string]bool{}
	for _, c := range cases {
		if names[c.Name+c.Kind] {
			t.Errorf("two %s reject cases named %q", c.Kind, c.Name)
		}
		names[c.Name+c.Kind] = true
		raw, err := hex.DecodeString(c.Hex)
		if err != nil {
			t.Fatal(err)
		}
		var got error
		switch c.Kind {
		case kindTranscript:
			_, got = record.DecodeTranscript(raw)
			if got != nil && !errors.Is(got, record.ErrMalformed) {
				t.Errorf("transcript %q: error does not wrap ErrMalformed: %v", c.Name, got)
			}
		case kindBlock:
			var b *record.Block
			if b, got = record.DecodeBlock(raw); got == nil {
				got = b.VerifySignature()
			}
		case kindNextBlock:
			s, err := ledger.Open(t.TempDir(), ledger.WithNetwork(out.Network))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Put(b0, objs); err != nil {
				t.Fatal(err)
			}
			_, got = s.Put(raw, objs)
			if got != nil && !errors.Is(got, ledger.ErrInvalidBlock) {
				t.Errorf("block %q: error is not ErrInvalidBlock: %v", c.Name, got)
			}
			s.Close()
		case kindForkProof:
			_, got = record.DecodeForkProof(raw)
		default:
			t.Fatalf("%q: kind %q", c.Name, c.Kind)
		}
		switch {
		case got == nil:
			t.Errorf("%s %q (%s): accepted", c.Kind, c.Name, c.Rule)
		case !strings.Contains(got.Error(), c.want):
			t.Errorf("%s %q (%s): refused for another reason than %q: %v", c.Kind, c.Name, c.Rule, c.want, got)
		}
	}
}
