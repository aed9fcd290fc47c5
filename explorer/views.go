package explorer

import (
	"encoding/hex"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/internal/textcut"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
)

// The JSON shapes of spec/api.md. Hotkeys are SS58 addresses, CIDs their
// base32 text, hashes and byte strings lower-case hex, times unix
// milliseconds, rates and bounds parts per million unless named *_float.

// HeadView is one validator's chain head.
type HeadView struct {
	Validator    keys.PublicKey    `json:"validator"`
	Height       uint64            `json:"height"`
	Block        string            `json:"block"`
	Checkpoint   record.Checkpoint `json:"checkpoint"`
	TimeMS       int64             `json:"time_ms"`
	Anchor       record.Anchor     `json:"anchor"`
	Equivocating bool              `json:"equivocating"`
}

func headView(h ledger.Head) HeadView {
	return HeadView{Validator: h.Block.Validator, Height: h.Block.Height, Block: h.Block.CID.String(),
		Checkpoint: h.Checkpoint, TimeMS: h.TimeMS, Anchor: h.Anchor, Equivocating: h.Equivocating}
}

// BlockSummary is a block without its links.
type BlockSummary struct {
	Validator   keys.PublicKey    `json:"validator"`
	Height      uint64            `json:"height"`
	CID         string            `json:"cid"`
	TimeMS      int64             `json:"time_ms"`
	Anchor      record.Anchor     `json:"anchor"`
	Transcripts int               `json:"transcripts"`
	Decisions   int               `json:"decisions"`
	Checkpoint  record.Checkpoint `json:"checkpoint"`
}

func blockSummary(b ledger.StoredBlock) BlockSummary {
	return BlockSummary{Validator: b.Validator, Height: b.Height, CID: b.CID.String(), TimeMS: b.TimeMS, Anchor: b.Anchor,
		Transcripts: len(b.Transcripts), Decisions: len(b.Decisions), Checkpoint: b.Checkpoint}
}

// TranscriptSummary is a row of a transcript list.
type TranscriptSummary struct {
	CID        string         `json:"cid"`
	Validator  keys.PublicKey `json:"validator"`
	Leaf       uint64         `json:"leaf"`
	Height     uint64         `json:"height"`
	Env        string         `json:"env"`
	EnvVersion uint16         `json:"env_version"`
	Challenge  string         `json:"challenge"`
	Miner      keys.PublicKey `json:"miner"`
	UID        uint16         `json:"uid"`
	Model      string         `json:"model"`
	Reward     int64          `json:"reward"`
	// Score is the reward scaled to [0, 1] (spec/api.md, "Scores").
	Score     float64 `json:"score"`
	Reason    string  `json:"reason"`
	Error     string  `json:"error"`
	StartedMS int64   `json:"started_ms"`
	LatencyMS uint64  `json:"latency_ms"`
	// Duel is the duel ID in hex, "" outside duels.
	Duel string `json:"duel"`
}

// maxSummaryText bounds reason and error in list rows; the transcript
// endpoint has them whole.
const maxSummaryText = 300

func transcriptSummary(ref ledger.TranscriptRef, t *record.Transcript) TranscriptSummary {
	out := TranscriptSummary{
		CID: ref.CID.String(), Validator: ref.Validator, Leaf: ref.Leaf, Height: ref.Height,
		Env: t.Env, EnvVersion: t.EnvVersion, Challenge: t.Challenge.String(),
		Miner: t.Miner.Hotkey, UID: t.Miner.UID, Model: clipText(t.Miner.Model, maxSummaryText),
		Reward: t.Reward, Score: scaleReward(t.Env, t.EnvVersion, t.Reward),
		Reason: clipText(t.Reason, maxSummaryText), Error: clipText(t.Error, maxSummaryText),
		StartedMS: t.StartedMS, LatencyMS: t.LatencyMS,
	}
	if !t.Duel.IsZero() {
		out.Duel = t.Duel.String()
	}
	return out
}

// clipText cuts s to at most n bytes at a rune boundary.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return textcut.Prefix(s, n) + "…"
}

func hexOf(b []byte) string { return hex.EncodeToString(b) }

func linkStrings(ls []codec.Link) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.Cid.String()
	}
	return out
}

func cidString(c cid.Cid) string {
	if !c.Defined() {
		return ""
	}
	return c.String()
}
