// Package ledgertest helps test code that reads or verifies a ledger store:
// deterministic sample transcripts, and a raw writer that overwrites stored
// values behind the store's back so tests can tamper (the store itself is
// append-only and has no such API).
//
// The raw writer opens the Pebble directory itself, so the store must be
// closed while it runs.
package ledgertest

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/internal/layout"
)

// Transcript returns a valid transcript of validator v, fully determined by
// (v, n): challenge mult8 v1 drawn at SeedAnchor with counter n (recorded
// as its seed, format 2), a two-message conversation and a reward.
// contentBytes pads the model's reply (0 for a short one). A chain whose
// blocks are anchored at SeedAnchor passes verify's seed check.
func Transcript(v keys.PublicKey, n uint64, contentBytes int) ledger.Transcript {
	t := TranscriptV1(v, n, contentBytes)
	t.Format = ledger.TranscriptFormat
	t.Seed = &ledger.Seed{Anchor: SeedAnchor, Counter: n}
	return t
}

// SeedAnchor is Anchor(1), where Transcript draws its challenges.
var SeedAnchor = Anchor(1)

// TranscriptV1 is Transcript in format 1, which records no seed: what
// ledgers written before format 2 hold.
func TranscriptV1(v keys.PublicKey, n uint64, contentBytes int) ledger.Transcript {
	anchor := SeedAnchor
	id, err := challenge.Derive(anchor.Hash, v, "mult8", 1, n)
	if err != nil {
		panic(err)
	}
	var miner keys.PublicKey
	miner[0] = byte(n % 3)
	miner[31] = 0xaa
	var inv ledger.InvocationID
	binary.BigEndian.PutUint64(inv[:], n+1)
	copy(inv[8:], v[:8])
	reply := fmt.Sprintf("<answer>%d</answer>", n*7)
	if contentBytes > len(reply) {
		reply += strings.Repeat("x", contentBytes-len(reply))
	}
	duel := ledger.Duel{Champion: miner, Contender: keys.PublicKey{1}, Start: anchor}
	start := int64(1_700_000_000_000 + n*1000)
	return ledger.Transcript{
		Format:     ledger.TranscriptFormatV1,
		Challenge:  id,
		Env:        id.Env,
		EnvVersion: id.Version,
		Validator:  v,
		Miner: ledger.Miner{
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
		Usage:       &ledger.Usage{PromptTokens: 20, CompletionTokens: 5},
		StartedMS:   start,
		FinishedMS:  start + 150,
	}
}

// Anchor returns a deterministic chain anchor for number n.
func Anchor(n uint64) ledger.Anchor {
	return ledger.Anchor{Number: n, Hash: sha256.Sum256(binary.BigEndian.AppendUint64([]byte("anchor"), n))}
}

// Set overwrites (or creates) key in the closed store at dir.
func Set(dir string, key, value []byte) error {
	return rawWrite(dir, func(b *pebble.Batch) error { return b.Set(key, value, nil) })
}

// Delete removes key from the closed store at dir.
func Delete(dir string, key []byte) error {
	return rawWrite(dir, func(b *pebble.Batch) error { return b.Delete(key, nil) })
}

// OverwriteObject replaces the stored bytes of object c.
func OverwriteObject(dir string, c cid.Cid, data []byte) error {
	return Set(dir, layout.ObjectKey(c.Bytes()), data)
}

// SetHead points v's head at c.
func SetHead(dir string, v keys.PublicKey, c cid.Cid) error {
	return Set(dir, layout.HeadKey(v), c.Bytes())
}

// SetBlockAt points v's height index at c.
func SetBlockAt(dir string, v keys.PublicKey, height uint64, c cid.Cid) error {
	return Set(dir, layout.BlockKey(v, height), c.Bytes())
}

// SetNode overwrites a stored Merkle node of v's log. Level 0 (leaf hashes)
// is not stored: the store derives it from the leaf table (LeafKey).
func SetNode(dir string, v keys.PublicKey, level uint, index uint64, h ledger.Hash) error {
	return Set(dir, layout.NodeKey(v, level, index), h[:])
}

// Get reads key from the closed store at dir (nil, false if absent).
func Get(dir string, key []byte) ([]byte, bool, error) {
	db, err := pebble.Open(dir, &pebble.Options{Logger: quiet{}})
	if err != nil {
		return nil, false, err
	}
	defer db.Close()
	v, closer, err := db.Get(key)
	if err == pebble.ErrNotFound {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer closer.Close()
	return append([]byte(nil), v...), true, nil
}

// Keys of the store layout (spec/store.md), for Set, Delete and Get.
var (
	HeadKey   = func(v keys.PublicKey) []byte { return layout.HeadKey(v) }
	BlockKey  = func(v keys.PublicKey, h uint64) []byte { return layout.BlockKey(v, h) }
	LeafKey   = func(v keys.PublicKey, i uint64) []byte { return layout.LeafKey(v, i) }
	ObjectKey = func(c cid.Cid) []byte { return layout.ObjectKey(c.Bytes()) }
)

func rawWrite(dir string, op func(*pebble.Batch) error) error {
	db, err := pebble.Open(dir, &pebble.Options{Logger: quiet{}, ErrorIfNotExists: true})
	if err != nil {
		return fmt.Errorf("ledgertest: open %s: %w", dir, err)
	}
	b := db.NewBatch()
	if err := op(b); err != nil {
		db.Close()
		return err
	}
	if err := b.Commit(pebble.Sync); err != nil {
		db.Close()
		return err
	}
	return db.Close()
}

type quiet struct{}

func (quiet) Infof(string, ...any)           {}
func (quiet) Errorf(string, ...any)          {}
func (quiet) Fatalf(format string, a ...any) { panic(fmt.Sprintf(format, a...)) }
