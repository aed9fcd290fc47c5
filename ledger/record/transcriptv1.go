package record

import (
	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/keys"
)

// mapHeadV1 is the first byte of every format-1 transcript: a CBOR map of
// its 19 keys. Format 2 has 20 (seed).
const mapHeadV1 = 0xa0 | 19

// transcriptV1 is the layout of a format-1 transcript: every key of
// Transcript but seed (spec/ledger.md#transcript). The codec has no
// optional keys, so the old layout is a type of its own.
type transcriptV1 struct {
	Format       uint64         `cbor:"v"`
	Challenge    challenge.ID   `cbor:"challenge"`
	Env          string         `cbor:"env"`
	EnvVersion   uint16         `cbor:"env_version"`
	Validator    keys.PublicKey `cbor:"validator"`
	Miner        Miner          `cbor:"miner"`
	Duel         DuelID         `cbor:"duel"`
	Invocation   InvocationID   `cbor:"invocation"`
	Conversation []envs.Message `cbor:"conversation"`
	TurnRewards  []int64        `cbor:"turn_rewards"`
	Reward       int64          `cbor:"reward"`
	Reason       string         `cbor:"reason"`
	LatencyMS    uint64         `cbor:"latency_ms"`
	Attempts     uint32         `cbor:"attempts"`
	Error        string         `cbor:"error"`
	HTTPStatus   uint16         `cbor:"http_status"`
	Usage        *Usage         `cbor:"usage"`
	StartedMS    int64          `cbor:"started_ms"`
	FinishedMS   int64          `cbor:"finished_ms"`
}

func (w *transcriptV1) transcript() Transcript {
	return Transcript{
		Format: w.Format, Challenge: w.Challenge, Env: w.Env, EnvVersion: w.EnvVersion,
		Validator: w.Validator, Miner: w.Miner, Duel: w.Duel, Invocation: w.Invocation,
		Conversation: w.Conversation, TurnRewards: w.TurnRewards, Reward: w.Reward, Reason: w.Reason,
		LatencyMS: w.LatencyMS, Attempts: w.Attempts, Error: w.Error, HTTPStatus: w.HTTPStatus,
		Usage: w.Usage, StartedMS: w.StartedMS, FinishedMS: w.FinishedMS,
	}
}

func (t *Transcript) v1() *transcriptV1 {
	return &transcriptV1{
		Format: t.Format, Challenge: t.Challenge, Env: t.Env, EnvVersion: t.EnvVersion,
		Validator: t.Validator, Miner: t.Miner, Duel: t.Duel, Invocation: t.Invocation,
		Conversation: t.Conversation, TurnRewards: t.TurnRewards, Reward: t.Reward, Reason: t.Reason,
		LatencyMS: t.LatencyMS, Attempts: t.Attempts, Error: t.Error, HTTPStatus: t.HTTPStatus,
		Usage: t.Usage, StartedMS: t.StartedMS, FinishedMS: t.FinishedMS,
	}
}
