package verify_test

import (
	"strings"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// stored reads validator 0's block at height and its transcripts.
func stored(t *testing.T, dir string, k *keys.Hotkey, height uint64) (ledger.StoredBlock, [][]byte) {
	t.Helper()
	s := open(t, dir)
	defer s.Close()
	b, err := s.BlockAt(k.Public(), height)
	if err != nil {
		t.Fatal(err)
	}
	var ts [][]byte
	for _, c := range b.TranscriptCIDs() {
		raw, err := s.Object(c)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, raw)
	}
	return b, ts
}

// onlyFailure checks that the report fails exactly once, for k's chain at
// height, block c (if defined) and transcript index, with want in the
// reason.
func onlyFailure(t *testing.T, rep verify.Report, k *keys.Hotkey, height uint64, c cid.Cid, transcript int, want string) {
	t.Helper()
	if rep.OK || len(rep.Failures) != 1 {
		t.Fatalf("want one failure, got ok=%v %+v", rep.OK, rep.Failures)
	}
	f := rep.Failures[0]
	if f.Validator != k.Public().String() || f.Height != height || f.Transcript != transcript {
		t.Fatalf("failure at %s height %d transcript %d, want %s height %d transcript %d: %s",
			f.Validator, f.Height, f.Transcript, k.Public(), height, transcript, f.Reason)
	}
	if c.Defined() && f.CID != c.String() {
		t.Fatalf("failure names block %s, want %s", f.CID, c)
	}
	if !strings.Contains(f.Reason, want) {
		t.Fatalf("reason %q does not say %q", f.Reason, want)
	}
}

var transcriptFields = []struct {
	name string
	edit func(*record.Transcript)
}{
	{"v", func(t *record.Transcript) { t.Format = 3 }},
	{"seed.anchor.number", func(t *record.Transcript) { t.Seed.Anchor.Number++ }},
	{"seed.anchor.hash", func(t *record.Transcript) { t.Seed.Anchor.Hash[0] ^= 1 }},
	{"seed.counter", func(t *record.Transcript) { t.Seed.Counter++ }},
	{"challenge", func(t *record.Transcript) { t.Challenge.Seed[0] ^= 1 }},
	{"env", func(t *record.Transcript) { t.Env = "coin" }},
	{"env_version", func(t *record.Transcript) { t.EnvVersion = 2 }},
	{"validator", func(t *record.Transcript) { t.Validator[0] ^= 1 }},
	{"miner.hotkey", func(t *record.Transcript) { t.Miner.Hotkey[0] ^= 1 }},
	{"miner.uid", func(t *record.Transcript) { t.Miner.UID++ }},
	{"miner.model", func(t *record.Transcript) { t.Miner.Model += "x" }},
	{"miner.revision", func(t *record.Transcript) { t.Miner.Revision = "other" }},
	{"miner.model_hash", func(t *record.Transcript) { t.Miner.ModelHash = append(t.Miner.ModelHash, 1) }},
	{"miner.endpoint", func(t *record.Transcript) { t.Miner.Endpoint = "elsewhere" }},
	{"duel", func(t *record.Transcript) { t.Duel[0] ^= 1 }},
	{"invocation", func(t *record.Transcript) { t.Invocation[0] ^= 1 }},
	{"conversation.role", func(t *record.Transcript) { t.Conversation[0].Role = "user" }},
	{"conversation.content", func(t *record.Transcript) { t.Conversation[len(t.Conversation)-1].Content += " " }},
	{"turn_rewards", func(t *record.Transcript) { t.TurnRewards[0]++ }},
	{"reward", func(t *record.Transcript) { t.Reward++ }},
	{"reason", func(t *record.Transcript) { t.Reason = "correct" }},
	{"latency_ms", func(t *record.Transcript) { t.LatencyMS++ }},
	{"attempts", func(t *record.Transcript) { t.Attempts++ }},
	{"error", func(t *record.Transcript) { t.Error = "timeout" }},
	{"http_status", func(t *record.Transcript) { t.HTTPStatus = 500 }},
	{"usage", func(t *record.Transcript) { t.Usage = nil }},
	{"started_ms", func(t *record.Transcript) { t.StartedMS-- }},
	{"finished_ms", func(t *record.Transcript) { t.FinishedMS++ }},
}

// TestTamperedTranscriptBytes changes one field of a stored transcript
// behind the store's back (same key, new bytes): verify must fail at that
// transcript of that block, and only there.
func TestTamperedTranscriptBytes(t *testing.T) {
	t.Parallel()
	base, ks := build(t, small)
	blk, ts := stored(t, base, ks[0], 1)
	for _, f := range transcriptFields {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			dir := copyStore(t, base)
			var tr record.Transcript
			if err := codec.Unmarshal(ts[2], &tr); err != nil {
				t.Fatal(err)
			}
			f.edit(&tr)
			raw, err := codec.Marshal(&tr)
			if err != nil {
				t.Fatal(err)
			}
			if err := ledgertest.OverwriteObject(dir, blk.Transcripts[2].Cid, raw); err != nil {
				t.Fatal(err)
			}
			onlyFailure(t, verifyDir(t, dir, verify.StoreScope{}), ks[0], 1, blk.CID, 2, "do not match the link")
		})
	}
}

var blockFields = []struct {
	name string
	edit func(*record.Block)
}{
	{"v", func(b *record.Block) { b.Format = 3 }},
	{"net.genesis", func(b *record.Block) { b.Net.Genesis[0] ^= 1 }},
	{"net.netuid", func(b *record.Block) { b.Net.Netuid++ }},
	{"validator", func(b *record.Block) { b.Validator[0] ^= 1 }},
	{"height", func(b *record.Block) { b.Height = 7 }},
	{"prev", func(b *record.Block) { b.Prev = codec.LinkTo(codec.Sum([]byte("x"))) }},
	{"time_ms", func(b *record.Block) { b.TimeMS++ }},
	{"anchor.number", func(b *record.Block) { b.Anchor.Number++ }},
	{"anchor.hash", func(b *record.Block) { b.Anchor.Hash[0] ^= 1 }},
	{"transcripts", func(b *record.Block) { b.Transcripts = b.Transcripts[1:] }},
	{"decisions", func(b *record.Block) { b.Decisions = nil }},
	{"checkpoint.size", func(b *record.Block) { b.Checkpoint.Size++ }},
	{"checkpoint.root", func(b *record.Block) { b.Checkpoint.Root[0] ^= 1 }},
	{"sig", func(b *record.Block) { b.Signature[0] ^= 1 }},
}

// TestTamperedBlockBytes changes one field of a stored block (not the
// head, which the store itself checks on open) behind the store's back.
func TestTamperedBlockBytes(t *testing.T) {
	t.Parallel()
	base, ks := build(t, small)
	blk, _ := stored(t, base, ks[0], 1)
	for _, f := range blockFields {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			dir := copyStore(t, base)
			b := *blk.Block
			f.edit(&b)
			raw, err := codec.Marshal(&b)
			if err != nil {
				t.Fatal(err)
			}
			if err := ledgertest.OverwriteObject(dir, blk.CID, raw); err != nil {
				t.Fatal(err)
			}
			onlyFailure(t, verifyDir(t, dir, verify.StoreScope{}), ks[0], 1, blk.CID, -1, "hash")
		})
	}
}

// TestResignedBlock replaces block 1 with a block its validator (or
// another) validly signed with one field changed, installed under its own
// CID: every check of the chain must name what is wrong.
func TestResignedBlock(t *testing.T) {
	t.Parallel()
	base, ks := build(t, small)
	blk, _ := stored(t, base, ks[0], 1)
	// The validator's block at height 1 on another chain, or on another
	// subnet: valid there, not here.
	otherGenesis, otherNetuid := blk.Net, blk.Net
	otherGenesis.Genesis[0] ^= 1
	otherNetuid.Netuid++
	cases := []struct {
		name string
		edit func(*record.Header)
		key  *keys.Hotkey
		want string
	}{
		{"net.genesis", func(h *record.Header) { h.Net = otherGenesis }, nil, "block of " + otherGenesis.String() + ", the ledger is of " + blk.Net.String()},
		{"net.netuid", func(h *record.Header) { h.Net = otherNetuid }, nil, "block of " + otherNetuid.String() + ", the ledger is of " + blk.Net.String()},
		{"height", func(h *record.Header) { h.Height = 7 }, nil, "height 7 where height 1 comes next"},
		{"prev", func(h *record.Header) { h.Prev = codec.LinkTo(codec.Sum([]byte("x"))) }, nil, "prev links " + codec.Sum([]byte("x")).String() + ", the block at height 0 is " + blk.Prev.Cid.String()},
		{"time_ms", func(h *record.Header) { h.TimeMS = 0 }, nil, "before the parent"},
		{"anchor.number", func(h *record.Header) { h.Anchor.Number = 0 }, nil, "older than the parent"},
		{"transcripts", func(h *record.Header) { h.Transcripts = h.Transcripts[1:] }, nil, "bad checkpoint"},
		{"transcripts.order", func(h *record.Header) {
			h.Transcripts[0], h.Transcripts[1] = h.Transcripts[1], h.Transcripts[0]
		}, nil, "bad checkpoint"},
		{"decisions", func(h *record.Header) { h.Decisions = []codec.Link{codec.LinkTo(codec.Sum([]byte("x")))} }, nil, "decision 0"},
		{"checkpoint.size", func(h *record.Header) { h.Checkpoint.Size++ }, nil, "bad checkpoint"},
		{"checkpoint.root", func(h *record.Header) { h.Checkpoint.Root[0] ^= 1 }, nil, "bad checkpoint"},
		{"validator", func(h *record.Header) { h.Validator = ks[1].Public() }, ks[1], "in the chain of"},
		{"signer", func(h *record.Header) {}, ks[1], "bad signature"},
		// The signature is checked while later checks run: its failure
		// must still be the one reported.
		{"signer+time_ms", func(h *record.Header) { h.TimeMS = 0 }, ks[1], "bad signature"},
		{"signer+anchor.number", func(h *record.Header) { h.Anchor.Number = 0 }, ks[1], "bad signature"},
		{"signer+checkpoint.root", func(h *record.Header) { h.Checkpoint.Root[0] ^= 1 }, ks[1], "bad signature"},
		{"signer+net.netuid", func(h *record.Header) { h.Net = otherNetuid }, ks[1], "bad signature"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := copyStore(t, base)
			h := blk.Header
			h.Transcripts = append([]codec.Link(nil), h.Transcripts...)
			tc.edit(&h)
			signer := ks[0]
			if tc.key != nil {
				signer = tc.key
			}
			raw, c := signAnyway(t, h, signer)
			install(t, dir, ks[0].Public(), 1, c, raw)
			onlyFailure(t, verifyDir(t, dir, verify.StoreScope{}), ks[0], 1, c, -1, tc.want)
		})
	}
}

// TestForgedBlockWithBadTranscript forges block 1 (signed by another
// key) and alters its first transcript: the transcript's check finishes
// long before the signature's, but the block's failure is the signature.
func TestForgedBlockWithBadTranscript(t *testing.T) {
	t.Parallel()
	base, ks := build(t, small)
	blk, ts := stored(t, base, ks[0], 1)
	dir := copyStore(t, base)
	raw, c := signAnyway(t, blk.Header, ks[1])
	install(t, dir, ks[0].Public(), 1, c, raw)
	bad := append([]byte(nil), ts[0]...)
	bad[len(bad)-1] ^= 1
	if err := ledgertest.OverwriteObject(dir, blk.Transcripts[0].Cid, bad); err != nil {
		t.Fatal(err)
	}
	onlyFailure(t, verifyDir(t, dir, verify.StoreScope{}), ks[0], 1, c, -1, "bad signature")
}

// signAnyway signs h with k even when k is not h's validator (a forged
// block) and skips Header.Check (a malformed one).
func signAnyway(t *testing.T, h record.Header, k *keys.Hotkey) ([]byte, cid.Cid) {
	t.Helper()
	msg, err := h.SigningBytes()
	if err != nil {
		t.Fatal(err)
	}
	sig, err := k.Sign(msg)
	if err != nil {
		t.Fatal(err)
	}
	raw, c, err := codec.Encode(&record.Block{Header: h, Signature: sig})
	if err != nil {
		t.Fatal(err)
	}
	return raw, c
}

func install(t *testing.T, dir string, v keys.PublicKey, height uint64, c cid.Cid, raw []byte) {
	t.Helper()
	if err := ledgertest.Set(dir, ledgertest.ObjectKey(c), raw); err != nil {
		t.Fatal(err)
	}
	if err := ledgertest.SetBlockAt(dir, v, height, c); err != nil {
		t.Fatal(err)
	}
}

// TestLyingValidator signs transcripts whose records disagree with what
// their env does: only re-execution (or the seed rule) can catch them.
func TestLyingValidator(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		edit func(*record.Transcript)
		want string
	}{
		{"reward", func(t *record.Transcript) { t.Reward++; t.TurnRewards[len(t.TurnRewards)-1]++ }, "reward: recorded"},
		{"final reward only", func(t *record.Transcript) { t.Reward++ }, "reward: recorded"},
		{"reason", func(t *record.Transcript) { t.Reason = "correct" }, "reason: recorded"},
		{"prompt", func(t *record.Transcript) { t.Conversation[1].Content += "!" }, "prompt: message 1"},
		{"reply rescored", func(t *record.Transcript) {
			t.Conversation[len(t.Conversation)-1].Content = "<answer>1</answer>"
		}, "replay gives \"wrong: got 1"},
		{"message after the end", func(t *record.Transcript) {
			t.Conversation = append(t.Conversation, envs.Message{Role: "assistant", Content: "more"})
		}, "after the episode ended"},
		{"turn rewards", func(t *record.Transcript) { t.TurnRewards = append(t.TurnRewards, 0) }, "turn rewards: 2 recorded"},
		// Drawn at an anchor the chain never recorded (the seed
		// derives the challenge: the record is consistent).
		{"seed anchor", func(t *record.Transcript) { redraw(t, forked, 0) }, "seed anchor 1 (" + forked.Hash.String() + ") is not recorded"},
		// Drawn at the next block's anchor.
		{"seed anchor ahead", func(t *record.Transcript) { redraw(t, verifytest.BlockAnchor(2), 0) }, "seed anchor 3 (" + verifytest.BlockAnchor(2).Hash.String() + ") is newer than the block's anchor 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			spec := verifytest.Spec{Validators: 1, Blocks: 3, PerBlock: 3, Envs: []string{"mult8"}}
			spec.Mutate = func(v, b, i int, tr *record.Transcript) {
				if b == 1 && i == 2 {
					tc.edit(tr)
				}
			}
			dir, ks := build(t, spec)
			blk, _ := stored(t, dir, ks[0], 1)
			onlyFailure(t, verifyDir(t, dir, verify.StoreScope{}), ks[0], 1, blk.CID, 2, tc.want)
		})
	}
}
