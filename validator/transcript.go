package validator

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/inference"
	"github.com/affine-ledger/ledger/internal/textcut"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
)

// errCanceled marks an episode abandoned because its context ended: it is
// not recorded (spec/inference.md: a cancelled call is not the miner's
// failure).
var errCanceled = errors.New("episode abandoned")

// play runs challenge id of env f, derived from seed, against one miner
// and records it.
func (v *Validator) play(ctx context.Context, s *sideRun, f envs.Factory, id challenge.ID, seed record.Seed, d record.DuelID) (record.Transcript, error) {
	started := v.cfg.Now()
	var rec inference.EpisodeRecord
	var err error
	if n := s.unanswered.Load(); n >= unansweredLimit {
		rec, err = inference.Unasked(f, id, fmt.Sprintf("not asked: the miner left its last %d challenges of this duel without any answer", n))
	} else {
		rec, err = inference.Play(ctx, v.cfg.Client, s.ep, f, id)
		if err == nil {
			s.noteAnswer(rec)
		}
	}
	finished := v.cfg.Now()
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, inference.ErrCanceled) {
			return record.Transcript{}, fmt.Errorf("%w: %w", errCanceled, err)
		}
		return record.Transcript{}, fmt.Errorf("miner %s: %w", s.miner.Hotkey.Short(), err)
	}
	for _, c := range rec.Calls {
		if c.ErrorKind != "" {
			v.cfg.Metrics.MinerError(c.ErrorKind)
		}
	}
	if n := len(rec.Calls); n > 0 && rec.Calls[n-1].ErrorKind != "" {
		v.failing.failed(v.cfg.Logger, finished, s, rec.Calls[n-1], rec.Error)
	}
	return newTranscript(v.pub, s.rec, d, seed, rec, started, finished), nil
}

// newTranscript records an episode (spec/validator.md, "Transcripts"): the
// conversation and rewards as played, and how the calls went, summed over
// the episode's calls. seed is what rec.ID was derived from.
func newTranscript(validator keys.PublicKey, m record.Miner, d record.DuelID, seed record.Seed, rec inference.EpisodeRecord, started, finished time.Time) record.Transcript {
	t := record.Transcript{
		Format:       record.TranscriptFormat,
		Challenge:    rec.ID,
		Env:          rec.ID.Env,
		EnvVersion:   rec.ID.Version,
		Validator:    validator,
		Seed:         &seed,
		Miner:        m,
		Duel:         d,
		Invocation:   record.NewInvocationID(),
		Conversation: rec.Messages,
		TurnRewards:  make([]int64, len(rec.Rewards)),
		Reward:       int64(rec.Reward),
		Reason:       record.RecordedReason(rec.Reason),
		Error:        clipText(rec.Error, record.MaxTextField),
		StartedMS:    max(started.UnixMilli(), 0),
	}
	t.FinishedMS = max(finished.UnixMilli(), t.StartedMS)
	for i, r := range rec.Rewards {
		t.TurnRewards[i] = int64(r)
	}
	var latency, attempts int64
	var prompt, completion uint64
	for _, c := range rec.Calls {
		latency += max(c.LatencyMS, 0)
		attempts += max(c.Attempts, 0)
		// The counts are the miner's word, up to 2^63-1 each: the sum
		// stops at the largest count rather than wrap.
		prompt = addCapped(prompt, c.PromptTokens)
		completion = addCapped(completion, c.CompletionTokens)
	}
	t.LatencyMS = uint64(latency)
	t.Attempts = uint32(min(attempts, math.MaxUint32))
	if n := len(rec.Calls); n > 0 {
		t.HTTPStatus = uint16(min(max(rec.Calls[n-1].Status, 0), math.MaxUint16))
	}
	// The client cannot tell a usage of zero tokens from none reported;
	// a reply that counted nothing is recorded as reporting none.
	if prompt > 0 || completion > 0 {
		t.Usage = &record.Usage{PromptTokens: prompt, CompletionTokens: completion}
	}
	return t
}

// addCapped adds a non-negative n to sum, stopping at the largest uint64.
func addCapped(sum uint64, n int64) uint64 {
	if n <= 0 {
		return sum
	}
	if s := sum + uint64(n); s >= sum {
		return s
	}
	return math.MaxUint64
}

// clipText returns s as valid UTF-8 of at most n bytes, cut at a rune.
func clipText(s string, n int) string {
	return textcut.Prefix(strings.ToValidUTF8(s, "\uFFFD"), n)
}
