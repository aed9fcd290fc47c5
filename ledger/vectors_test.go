package ledger_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/internal/golden"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
)

// The vectors of spec/ledger.md: everything is fixed except signatures,
// which sr25519 randomizes. The test takes the signatures from the file,
// checks that they verify over the bytes it derives, and then rebuilds the
// whole file from code and compares it byte for byte. LEDGER_UPDATE_VECTORS=1
// signs afresh and rewrites it.

type ledgerVectors struct {
	Note        string         `json:"note"`
	Validator   vectorKey      `json:"validator"`
	Duel        vectorDuel     `json:"duel"`
	Transcripts []vectorRecord `json:"transcripts"`
	// TranscriptsV1 are the same records in format 1 (no seed), pinning
	// the bytes of ledgers written before format 2.
	TranscriptsV1 []vectorRecord `json:"transcripts_v1"`
	Decisions     []vectorRecord `json:"decisions"`
	// Network is the network the blocks name.
	Network record.Network `json:"network"`
	Blocks  []vectorBlock  `json:"blocks"`
	// BlocksV1 are the same chain in block format 1 (no net), pinning
	// the bytes of ledgers written before format 2.
	BlocksV1    []vectorBlock     `json:"blocks_v1"`
	Inclusion   []vectorInclusion `json:"inclusion_proofs"`
	Consistency []vectorConsist   `json:"consistency_proofs"`
	// ForkProofs are a fork proof of each format: format 2 of blocks[0]
	// and another block at height 0, format 1 (which proves no
	// equivocation) of blocks_v1[0] and another.
	ForkProofs []vectorForkProof `json:"fork_proofs"`
	// Reject are records that break one rule each (vectors_reject_test.go).
	Reject []vectorReject `json:"reject"`
	// ReasonCuts are reasons past the limit as a transcript records them.
	ReasonCuts []vectorReasonCut `json:"reason_cuts"`
}

type vectorForkProof struct {
	Format uint64 `json:"v"`
	// Other is the block the proof pairs with the chain's block at
	// height 0 of its format.
	Other              vectorBlock `json:"other_block"`
	Hex                string      `json:"hex"`
	CID                string      `json:"cid"`
	ProvesEquivocation bool        `json:"proves_equivocation"`
}

type vectorKey struct {
	URI       string `json:"uri"`
	PublicKey string `json:"public_key"`
	SS58      string `json:"ss58"`
}

type vectorDuel struct {
	Value record.Duel   `json:"value"`
	ID    record.DuelID `json:"id"`
}

type vectorRecord struct {
	Value    any    `json:"value,omitempty"`
	Hex      string `json:"hex"`
	CID      string `json:"cid"`
	LeafHash string `json:"leaf_hash,omitempty"`
}

type vectorBlock struct {
	Header         record.Header     `json:"header"`
	HeaderHex      string            `json:"header_hex"`
	SigningMessage string            `json:"signing_message_hex"`
	Signature      string            `json:"signature"`
	Hex            string            `json:"hex"`
	CID            string            `json:"cid"`
	Checkpoint     record.Checkpoint `json:"checkpoint"`
}

type vectorInclusion struct {
	Leaf uint64   `json:"leaf"`
	Size uint64   `json:"size"`
	Path []string `json:"path"`
}

type vectorConsist struct {
	Size1 uint64   `json:"size1"`
	Size2 uint64   `json:"size2"`
	Proof []string `json:"proof"`
}

// vectorTranscripts returns the vector transcripts in format 2, their
// seeds drawn at the duel's start.
func vectorTranscripts(t *testing.T, v keys.PublicKey, duel record.Duel) []record.Transcript {
	mk := func(env string, counter uint64) (challenge.ID, *record.Seed) {
		seed := &record.Seed{Anchor: duel.Start, Counter: counter}
		id, err := seed.Derive(v, env, 1)
		if err != nil {
			t.Fatal(err)
		}
		return id, seed
	}
	miner := keys.PublicKey(sha256.Sum256([]byte("vector miner")))
	base := func(env string, counter uint64, inv byte) record.Transcript {
		id, seed := mk(env, counter)
		return record.Transcript{
			Format: record.TranscriptFormat, Challenge: id, Env: id.Env, EnvVersion: id.Version, Seed: seed,
			Validator: v, Duel: duel.ID(), Invocation: record.InvocationID{inv, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
			Miner:     record.Miner{Hotkey: miner, UID: 17, Model: "org/champion", Revision: "a1b2c3d", ModelHash: record.Bytes{0xab, 0xcd}, Endpoint: "chute-1234"},
			StartedMS: 1_750_000_000_000, FinishedMS: 1_750_000_001_500, Attempts: 1, HTTPStatus: 200,
		}
	}
	a := base("mult8", 0, 0xa0)
	a.Conversation = []envs.Message{
		{Role: "system", Content: "Answer with <answer>N</answer>."},
		{Role: "user", Content: "What is 12345678 × 87654321?"},
		{Role: "assistant", Content: "<answer>1082152022374638</answer>"},
	}
	a.TurnRewards, a.Reward, a.Reason, a.LatencyMS = []int64{1}, 1, "correct", 1432
	a.Usage = &record.Usage{PromptTokens: 31, CompletionTokens: 12}

	b := base("tictactoe", 0, 0xb0)
	b.Conversation = []envs.Message{
		{Role: "user", Content: "You are X. Board:\n...\n...\n...\nMove?"},
		{Role: "assistant", Content: "<move>5</move>"},
		{Role: "user", Content: "O played 1. Move?"},
		{Role: "assistant", Content: "<move>9</move>"},
	}
	b.TurnRewards, b.Reward, b.Reason, b.LatencyMS, b.Attempts = []int64{0, -1}, -1, "lost", 2210, 2

	c := base("sat", 3, 0xc0)
	c.Conversation = []envs.Message{{Role: "user", Content: "Solve."}}
	c.TurnRewards, c.Reward, c.Reason, c.LatencyMS = []int64{}, 0, "no answer", 30000
	c.Error, c.HTTPStatus, c.Attempts = "timeout after 30s", 0, 3
	c.Duel = record.DuelID{}
	return []record.Transcript{a, b, c}
}

func TestVectors(t *testing.T) {
	update := os.Getenv(golden.UpdateEnv) == "1"
	var stored ledgerVectors
	raw, err := os.ReadFile(golden.VectorPath("ledger.json"))
	if err != nil && !update {
		t.Fatalf("read vectors (run `make vectors` once to create them): %v", err)
	}
	if err == nil {
		if err := json.Unmarshal(raw, &stored); err != nil {
			t.Fatal(err)
		}
	}
	k := alice(t)
	v := k.Public()
	duel := record.Duel{Champion: keys.PublicKey(sha256.Sum256([]byte("vector miner"))), Contender: keys.PublicKey(sha256.Sum256([]byte("vector contender"))), Start: record.Anchor{Number: 4_200_000, Hash: sha256.Sum256([]byte("vector anchor"))}}
	out := ledgerVectors{
		Note:      "spec/ledger.md. Everything but the signatures is deterministic; signatures are sr25519 (randomized) and must verify under validator.public_key over signing_message_hex. Byte strings are lower-case hex; public keys inside values are SS58 addresses, links CID strings.",
		Validator: vectorKey{URI: "//Alice", PublicKey: hex.EncodeToString(v[:]), SS58: v.SS58()},
		Duel:      vectorDuel{Value: duel, ID: duel.ID()},
	}
	var leaves []cid.Cid
	for _, tr := range vectorTranscripts(t, v, duel) {
		raw, c, err := tr.Encode()
		if err != nil {
			t.Fatal(err)
		}
		leaves = append(leaves, c)
		lh := record.LeafHash(c)
		out.Transcripts = append(out.Transcripts, vectorRecord{Value: tr, Hex: hex.EncodeToString(raw), CID: c.String(), LeafHash: lh.String()})

		tr.Format, tr.Seed = record.TranscriptFormatV1, nil
		raw, c, err = tr.Encode()
		if err != nil {
			t.Fatal(err)
		}
		lh = record.LeafHash(c)
		out.TranscriptsV1 = append(out.TranscriptsV1, vectorRecord{Value: tr, Hex: hex.EncodeToString(raw), CID: c.String(), LeafHash: lh.String()})
	}
	decision, err := codec.Marshal(map[string]any{"kind": "example", "winner": "contender"})
	if err != nil {
		t.Fatal(err)
	}
	decisionCID := codec.Sum(decision)
	out.Decisions = append(out.Decisions, vectorRecord{Hex: hex.EncodeToString(decision), CID: decisionCID.String()})

	net := record.Network{Genesis: sha256.Sum256([]byte("vector genesis")), Netuid: 120}
	out.Network = net
	headers := []record.Header{
		{Format: record.BlockFormat, Net: net, Validator: v, Height: 0, TimeMS: 1_750_000_002_000, Anchor: duel.Start,
			Transcripts: []codec.Link{codec.LinkTo(leaves[0]), codec.LinkTo(leaves[1])}, Decisions: []codec.Link{},
			Checkpoint: record.CheckpointOf(leaves[:2])},
		{Format: record.BlockFormat, Net: net, Validator: v, Height: 1, TimeMS: 1_750_000_014_000, Anchor: record.Anchor{Number: 4_200_001, Hash: sha256.Sum256([]byte("vector anchor 2"))},
			Transcripts: []codec.Link{codec.LinkTo(leaves[2])}, Decisions: []codec.Link{codec.LinkTo(decisionCID)},
			Checkpoint: record.CheckpointOf(leaves)},
	}
	var blocksRaw, blocksRawV1 [][]byte
	out.Blocks, blocksRaw = vectorChain(t, k, headers, stored.Blocks, update)
	headersV2 := append([]record.Header(nil), headers...)
	other := headers[0]
	other.TimeMS += 1000
	out.ForkProofs = append(out.ForkProofs, vectorFork(t, k, record.ForkProofFormat, blocksRaw[0], other, stored.ForkProofs, update))
	for i := range headers {
		headers[i].Format, headers[i].Net = record.BlockFormatV1, record.Network{}
	}
	out.BlocksV1, blocksRawV1 = vectorChain(t, k, headers, stored.BlocksV1, update)
	other.Format, other.Net = record.BlockFormatV1, record.Network{}
	out.ForkProofs = append(out.ForkProofs, vectorFork(t, k, record.ForkProofFormatV1, blocksRawV1[0], other, stored.ForkProofs, update))

	// The blocks are a valid chain: a store accepts them from a peer and
	// computes the proofs from what it stored.
	s, err := ledger.Open(t.TempDir(), ledger.WithNetwork(net))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	objs := map[cid.Cid][]byte{decisionCID: decision}
	for i, tr := range out.Transcripts {
		b, _ := hex.DecodeString(tr.Hex)
		objs[leaves[i]] = b
	}
	for i, raw := range blocksRaw {
		if _, err := s.Put(raw, objs); err != nil {
			t.Fatalf("block %d: %v", i, err)
		}
	}
	for _, q := range [][2]uint64{{0, 3}, {1, 3}, {2, 3}, {1, 2}} {
		p, err := s.InclusionProof(v, q[0], q[1])
		if err != nil {
			t.Fatal(err)
		}
		out.Inclusion = append(out.Inclusion, vectorInclusion{Leaf: q[0], Size: q[1], Path: hexes(p)})
	}
	p, err := s.ConsistencyProof(v, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := record.VerifyConsistency(headers[0].Checkpoint, headers[1].Checkpoint, p); err != nil {
		t.Fatal(err)
	}
	out.Consistency = append(out.Consistency, vectorConsist{Size1: 2, Size2: 3, Proof: hexes(p)})

	out.Reject = buildRejects(t, k, stored.Reject, update, &out, headersV2)
	out.ReasonCuts = buildReasonCuts(t)

	golden.CheckJSON(t, "ledger.json", out)
	checkRejects(t, out.Reject, &out)
	checkReasonCuts(t, out.ReasonCuts)

	// File to code: every transcript's bytes, of both formats, decode
	// and re-encode to themselves.
	for i, tr := range append(append([]vectorRecord(nil), out.Transcripts...), out.TranscriptsV1...) {
		b, _ := hex.DecodeString(tr.Hex)
		back, err := record.DecodeTranscript(b)
		if err != nil {
			t.Fatalf("transcript %d: %v", i, err)
		}
		want := uint64(record.TranscriptFormat)
		if i >= len(out.Transcripts) {
			want = record.TranscriptFormatV1
		}
		if back.Format != want {
			t.Fatalf("transcript %d: format %d, want %d", i, back.Format, want)
		}
		again, _, _ := back.Encode()
		if !bytes.Equal(again, b) {
			t.Fatalf("transcript %d does not re-encode to its vector bytes", i)
		}
	}
}

// vectorChain signs headers as a chain (each links the one before) with
// the signatures of stored where they verify: a vector's signature, which
// is randomized, changes only with the bytes it signs. Without update every
// stored signature must verify.
func vectorChain(t *testing.T, k *keys.Hotkey, headers []record.Header, stored []vectorBlock, update bool) ([]vectorBlock, [][]byte) {
	t.Helper()
	var out []vectorBlock
	var raws [][]byte
	var prev cid.Cid
	for i, h := range headers {
		if i > 0 {
			h.Prev = codec.LinkTo(prev)
		}
		msg, err := h.SigningBytes()
		if err != nil {
			t.Fatal(err)
		}
		var sig keys.Signature
		if i < len(stored) {
			if b, err := hex.DecodeString(stored[i].Signature); err == nil && len(b) == len(sig) {
				copy(sig[:], b)
			}
		}
		if !keys.Verify(k.Public(), msg, sig) {
			if !update {
				t.Fatalf("format %d block %d: no stored signature verifies over the signing message this code derives", h.Format, i)
			}
			blk, _, _, err := record.Sign(h, k)
			if err != nil {
				t.Fatal(err)
			}
			sig = blk.Signature
		}
		blk := &record.Block{Header: h, Signature: sig}
		raw, c, err := blk.Encode()
		if err != nil {
			t.Fatal(err)
		}
		back, err := record.DecodeBlock(raw)
		if err != nil || back.VerifySignature() != nil || back.Format != h.Format {
			t.Fatalf("format %d block %d does not decode and verify: %v", h.Format, i, err)
		}
		headerRaw, _ := codec.Marshal(&h)
		if h.Format == record.BlockFormatV1 {
			headerRaw = msg[len(record.BlockDomainV1)+1:]
		}
		out = append(out, vectorBlock{
			Header: h, HeaderHex: hex.EncodeToString(headerRaw), SigningMessage: hex.EncodeToString(msg),
			Signature: hex.EncodeToString(sig[:]), Hex: hex.EncodeToString(raw), CID: c.String(), Checkpoint: h.Checkpoint,
		})
		raws = append(raws, raw)
		prev = c
	}
	return out, raws
}

// vectorFork signs other (with the signature stored for it, as
// vectorChain) and returns the fork proof of format of it and block. The
// code makes format 2 only; format 1, which earlier versions made, is
// assembled as they did, and must decode and verify, proving nothing.
func vectorFork(t *testing.T, k *keys.Hotkey, format uint64, block []byte, other record.Header, stored []vectorForkProof, update bool) vectorForkProof {
	t.Helper()
	var prev []vectorBlock
	for _, f := range stored {
		if f.Format == format {
			prev = append(prev, f.Other)
		}
	}
	vb, raws := vectorChain(t, k, []record.Header{other}, prev, update)
	a, b := block, raws[0]
	if bytes.Compare(codec.Sum(a).Bytes(), codec.Sum(b).Bytes()) > 0 {
		a, b = b, a
	}
	blk, err := record.DecodeBlock(block)
	if err != nil {
		t.Fatal(err)
	}
	p := &record.ForkProof{Format: format, Validator: blk.Validator, Height: blk.Height, A: a, B: b}
	if format == record.ForkProofFormat {
		if p, err = record.NewForkProof(block, raws[0]); err != nil {
			t.Fatal(err)
		}
	}
	raw, c, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := record.DecodeForkProof(raw)
	if err != nil || back.Format != format {
		t.Fatalf("fork proof of format %d does not decode and verify: %v", format, err)
	}
	return vectorForkProof{Format: format, Other: vb[0], Hex: hex.EncodeToString(raw), CID: c.String(), ProvesEquivocation: back.ProvesEquivocation()}
}

func hexes(p [][]byte) []string {
	out := make([]string, len(p))
	for i, h := range p {
		out[i] = hex.EncodeToString(h)
	}
	return out
}
