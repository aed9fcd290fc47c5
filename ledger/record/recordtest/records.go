// Package recordtest has deterministic sample records for tests: valid
// transcripts, chain anchors and development keys.
package recordtest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/internal/golden"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
)

// Transcript returns a valid transcript of validator v, fully determined by
// (v, n): challenge mult8 v1 drawn at SeedAnchor with counter n (recorded
// as its seed, format 2), a two-message conversation and a reward.
// contentBytes pads the model's reply (0 for a short one). A chain whose
// blocks are anchored at SeedAnchor passes verify's seed check.
func Transcript(v keys.PublicKey, n uint64, contentBytes int) record.Transcript {
	t := TranscriptV1(v, n, contentBytes)
	t.Format = record.TranscriptFormat
	t.Seed = &record.Seed{Anchor: SeedAnchor, Counter: n}
	return t
}

// SeedAnchor is Anchor(1), where Transcript draws its challenges.
var SeedAnchor = Anchor(1)

// TranscriptV1 is Transcript in format 1, which records no seed: what
// ledgers written before format 2 hold.
func TranscriptV1(v keys.PublicKey, n uint64, contentBytes int) record.Transcript {
	anchor := SeedAnchor
	id, err := challenge.Derive(anchor.Hash, v, "mult8", 1, n)
	if err != nil {
		panic(err)
	}
	var miner keys.PublicKey
	miner[0] = byte(n % 3)
	miner[31] = 0xaa
	var inv record.InvocationID
	binary.BigEndian.PutUint64(inv[:], n+1)
	copy(inv[8:], v[:8])
	reply := fmt.Sprintf("<answer>%d</answer>", n*7)
	if contentBytes > len(reply) {
		reply += strings.Repeat("x", contentBytes-len(reply))
	}
	duel := record.Duel{Champion: miner, Contender: keys.PublicKey{1}, Start: anchor}
	start := int64(1_700_000_000_000 + n*1000)
	return record.Transcript{
		Format:     record.TranscriptFormatV1,
		Challenge:  id,
		Env:        id.Env,
		EnvVersion: id.Version,
		Validator:  v,
		Miner: record.Miner{
			Hotkey: miner, UID: uint16(n % 256), Model: "org/model-" + fmt.Sprint(n%3),
			Revision: "0123abcd", ModelHash: []byte{0xde, 0xad, byte(n)}, Endpoint: "chute-" + fmt.Sprint(n%3),
		},
		Duel:       duel.ID(),
		Invocation: inv,
		Conversation: []envs.Message{
			{Role: envs.RoleSystem, Content: "Multiply. Answer in <answer></answer>."},
			{Role: envs.RoleUser, Content: fmt.Sprintf("What is %d * 7?", n)},
			{Role: envs.RoleAssistant, Content: reply},
		},
		TurnRewards: []int64{1},
		Reward:      1,
		Reason:      "correct",
		LatencyMS:   120 + n%50,
		Attempts:    1,
		HTTPStatus:  200,
		Usage:       &record.Usage{PromptTokens: 20, CompletionTokens: 5},
		StartedMS:   start,
		FinishedMS:  start + 150,
	}
}

// Anchor returns a deterministic chain anchor for number n.
func Anchor(n uint64) record.Anchor {
	return record.Anchor{Number: n, Hash: sha256.Sum256(binary.BigEndian.AppendUint64([]byte("anchor"), n))}
}

// Hotkey returns the development key of uri ("//Alice"), failing t if it
// does not derive.
func Hotkey(t testing.TB, uri string) *keys.Hotkey {
	t.Helper()
	k, err := keys.FromURI(uri)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// Network is the network of test blocks: netuid 1 of a chain whose genesis
// hash is the SHA-256 of "recordtest genesis".
var Network = record.Network{Genesis: sha256.Sum256([]byte("recordtest genesis")), Netuid: 1}

// BlockV1 signs k's empty block of format 1 (which names no network) at
// height 0, anchored at Anchor(1); timeMS tells two apart, as a fork
// proof of format 1 holds.
func BlockV1(t testing.TB, k *keys.Hotkey, timeMS int64) []byte {
	t.Helper()
	_, raw, _, err := record.Sign(record.Header{Format: record.BlockFormatV1, Validator: k.Public(), TimeMS: timeMS,
		Anchor: Anchor(1), Checkpoint: record.Checkpoint{Root: record.EmptyRoot()}}, k)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// ForkProofVector is one fork proof of spec/vectors/ledger.json, as a
// reader of the vectors uses it.
type ForkProofVector struct {
	Format             uint64
	Raw                []byte
	CID                string
	ProvesEquivocation bool
}

// ForkProofVectors reads the fork proofs of spec/vectors/ledger.json,
// failing tb if the file does not hold one of each format, newest first.
func ForkProofVectors(tb testing.TB) []ForkProofVector {
	tb.Helper()
	data, err := os.ReadFile(golden.VectorPath("ledger.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var v struct {
		ForkProofs []struct {
			V                  uint64 `json:"v"`
			Hex                string `json:"hex"`
			CID                string `json:"cid"`
			ProvesEquivocation bool   `json:"proves_equivocation"`
		} `json:"fork_proofs"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		tb.Fatal(err)
	}
	var out []ForkProofVector
	for i, p := range v.ForkProofs {
		raw, err := hex.DecodeString(p.Hex)
		if err != nil {
			tb.Fatal(err)
		}
		if want := uint64(record.ForkProofFormat) - uint64(i); p.V != want {
			tb.Fatalf("fork proof vector %d is of format %d, want %d", i, p.V, want)
		}
		out = append(out, ForkProofVector{Format: p.V, Raw: raw, CID: p.CID, ProvesEquivocation: p.ProvesEquivocation})
	}
	if len(out) != 2 {
		tb.Fatalf("%d fork proof vectors, want 2", len(out))
	}
	return out
}
