package record

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"unicode/utf8"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/keys"
)

// TranscriptFormat is the version of the transcript record this code
// writes: it records the seed its challenge was derived from. Format 1
// (TranscriptFormatV1), which did not, is still read, so that old ledgers
// stay verifiable.
const TranscriptFormat = 2

// TranscriptFormatV1 is the first transcript format: no seed key.
const TranscriptFormatV1 = 1

// Transcript is the full record of one challenge put to one miner: what was
// asked, every message exchanged, how it was scored and how the exchange
// went. It is a leaf of its validator's log and is covered by the signature
// of the block that links it (spec/ledger.md#transcript).
//
// Every field is always encoded; "absent" is the zero value (empty string, 0)
// except Usage, which is null when both token sums are 0 (a reply that
// counted nothing cannot be told from one that reported nothing). Seed is set
// exactly in format 2; a format-1 record has no seed key at all, and Encode
// writes each format in its own layout, so an old record keeps its bytes
// and CID. Encode and DecodeTranscript are the way in and out: codec.Marshal
// of a Transcript gives the format-2 layout only.
type Transcript struct {
	Format    uint64       `cbor:"v" json:"v"`
	Challenge challenge.ID `cbor:"challenge" json:"challenge"`
	// Env and EnvVersion repeat the challenge ID's so that readers and
	// indexes need not parse it; they must agree with it.
	Env        string         `cbor:"env" json:"env"`
	EnvVersion uint16         `cbor:"env_version" json:"env_version"`
	Validator  keys.PublicKey `cbor:"validator" json:"validator"`
	// Seed is what the validator derived the challenge's seed from; nil
	// in format 1.
	Seed  *Seed `cbor:"seed" json:"seed,omitempty"`
	Miner Miner `cbor:"miner" json:"miner"`
	// Duel is the duel this challenge was drawn for; zero for none.
	Duel DuelID `cbor:"duel" json:"duel"`
	// Invocation is unique per request to the miner, so that two runs of
	// one challenge (a retry, a re-execution) are told apart.
	Invocation InvocationID `cbor:"invocation" json:"invocation"`
	// Conversation holds every message of every turn in order: the
	// environment's observations and the model's replies.
	Conversation []envs.Message `cbor:"conversation" json:"conversation"`
	// TurnRewards holds the reward of each Step, in order.
	TurnRewards []int64 `cbor:"turn_rewards" json:"turn_rewards"`
	Reward      int64   `cbor:"reward" json:"reward"`
	Reason      string  `cbor:"reason" json:"reason"`
	// LatencyMS is the summed wall time of the miner's replies.
	LatencyMS uint64 `cbor:"latency_ms" json:"latency_ms"`
	// Attempts counts requests made, retries included.
	Attempts uint32 `cbor:"attempts" json:"attempts"`
	// Error is the last transport or protocol error, empty if none.
	Error string `cbor:"error" json:"error"`
	// HTTPStatus of the last response, 0 if none was received.
	HTTPStatus uint16 `cbor:"http_status" json:"http_status"`
	Usage      *Usage `cbor:"usage" json:"usage"`
	// StartedMS and FinishedMS are unix milliseconds.
	StartedMS  int64 `cbor:"started_ms" json:"started_ms"`
	FinishedMS int64 `cbor:"finished_ms" json:"finished_ms"`
}

// Seed is what a challenge's seed was derived from (spec/challenge-id.md):
// the chain block the validator drew it at, a duel's start, and the count
// of challenges of its env and version drawn there before it.
type Seed struct {
	Anchor  Anchor `cbor:"anchor" json:"anchor"`
	Counter uint64 `cbor:"counter" json:"counter"`
}

// Derive returns the challenge ID that s gives validator for env version.
func (s Seed) Derive(validator keys.PublicKey, env string, version uint16) (challenge.ID, error) {
	return challenge.Derive(s.Anchor.Hash, validator, env, version, s.Counter)
}

// Miner identifies the model under test as committed on chain.
type Miner struct {
	Hotkey    keys.PublicKey `cbor:"hotkey" json:"hotkey"`
	UID       uint16         `cbor:"uid" json:"uid"`
	Model     string         `cbor:"model" json:"model"`
	Revision  string         `cbor:"revision" json:"revision"`
	ModelHash Bytes          `cbor:"model_hash" json:"model_hash"`
	// Endpoint is the chute ID or base URL the validator queried.
	Endpoint string `cbor:"endpoint" json:"endpoint"`
}

// Bytes is a byte string: CBOR bytes, JSON lower-case hex.
type Bytes []byte

// MarshalText writes lower-case hex.
func (b Bytes) MarshalText() ([]byte, error) { return []byte(hex.EncodeToString(b)), nil }

// UnmarshalText reads hex.
func (b *Bytes) UnmarshalText(t []byte) error {
	out, err := hex.DecodeString(string(t))
	if err != nil {
		return fmt.Errorf("bytes: %w", err)
	}
	*b = out
	return nil
}

// Usage is the token accounting an OpenAI-compatible endpoint reports,
// summed over turns.
type Usage struct {
	PromptTokens     uint64 `cbor:"prompt_tokens" json:"prompt_tokens"`
	CompletionTokens uint64 `cbor:"completion_tokens" json:"completion_tokens"`
}

// InvocationID is 16 bytes unique to one request.
type InvocationID [16]byte

// NewInvocationID returns 16 random bytes.
func NewInvocationID() InvocationID {
	var id InvocationID
	if _, err := rand.Read(id[:]); err != nil {
		// crypto/rand.Read does not fail on supported platforms (Go 1.24+).
		panic(fmt.Sprintf("record: crypto/rand: %v", err))
	}
	return id
}

// String returns lower-case hex.
func (id InvocationID) String() string { return hex.EncodeToString(id[:]) }

// MarshalText writes lower-case hex (JSON).
func (id InvocationID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText reads 32 hex characters.
func (id *InvocationID) UnmarshalText(b []byte) error {
	if len(b) != 32 {
		return fmt.Errorf("invocation ID: want 32 hex characters, got %d", len(b))
	}
	_, err := hex.Decode(id[:], b)
	return err
}

// Check enforces the rules of spec/ledger.md#transcript that the encoding
// alone does not: format, consistency with the challenge ID and (format 2)
// the seed it was derived from, limits, and text that is UTF-8.
func (t *Transcript) Check() error { return t.check(true) }

// check is Check; text false skips the UTF-8 checks, for a transcript
// decoded by the codec, which refuses text strings that are not UTF-8:
// an audit would otherwise scan every message twice.
func (t *Transcript) check(text bool) error {
	const what = "transcript"
	switch {
	case t.Format != TranscriptFormat && t.Format != TranscriptFormatV1:
		return malformed(what, "format %d, this code reads %d and %d", t.Format, TranscriptFormatV1, TranscriptFormat)
	case t.Format == TranscriptFormat && t.Seed == nil:
		return malformed(what, "format %d has no seed", t.Format)
	case t.Format == TranscriptFormatV1 && t.Seed != nil:
		return malformed(what, "format %d records no seed", t.Format)
	}
	if err := challenge.CheckEnvName(t.Challenge.Env); err != nil || t.Challenge.Version == 0 {
		return malformed(what, "challenge ID is not set")
	}
	if t.Env != t.Challenge.Env || t.EnvVersion != t.Challenge.Version {
		return malformed(what, "env %s v%d disagrees with challenge %s", t.Env, t.EnvVersion, t.Challenge)
	}
	if t.Validator == (keys.PublicKey{}) {
		return malformed(what, "validator is not set")
	}
	if s := t.Seed; s != nil {
		if got := challenge.DeriveSeed(s.Anchor.Hash, t.Validator, t.Challenge.Env, t.Challenge.Version, s.Counter); got != t.Challenge.Seed {
			// Copies, so that only a failure moves them to the heap.
			got, want := got, t.Challenge.Seed
			return malformed(what, "seed anchor %d (%s) counter %d derives seed %x, the challenge's is %x",
				s.Anchor.Number, s.Anchor.Hash, s.Counter, got[:], want[:])
		}
	}
	if t.Miner.Hotkey == (keys.PublicKey{}) {
		return malformed(what, "miner hotkey is not set")
	}
	if t.Invocation == (InvocationID{}) {
		return malformed(what, "invocation ID is not set")
	}
	for _, f := range [...]struct{ name, s string }{
		{"reason", t.Reason}, {"error", t.Error}, {"miner model", t.Miner.Model},
		{"miner revision", t.Miner.Revision}, {"miner endpoint", t.Miner.Endpoint},
	} {
		if len(f.s) > MaxTextField {
			return malformed(what, "%s has %d bytes, max %d", f.name, len(f.s), MaxTextField)
		}
		if text && !utf8.ValidString(f.s) {
			return malformed(what, "%s is not valid UTF-8", f.name)
		}
	}
	if len(t.Miner.ModelHash) > MaxModelHash {
		return malformed(what, "model hash has %d bytes, max %d", len(t.Miner.ModelHash), MaxModelHash)
	}
	if len(t.Conversation) > MaxMessages {
		return malformed(what, "conversation has %d messages, max %d", len(t.Conversation), MaxMessages)
	}
	total := 0
	for i, m := range t.Conversation {
		if !validRole(m.Role) {
			return malformed(what, "message %d: role %q must be 1 to %d characters from [a-z_]", i, clip(m.Role), MaxRoleBytes)
		}
		if text && !utf8.ValidString(m.Content) {
			return malformed(what, "message %d: content is not valid UTF-8", i)
		}
		total += len(m.Role) + len(m.Content)
		if total > MaxConversationBytes {
			return malformed(what, "conversation exceeds %d bytes at message %d", MaxConversationBytes, i)
		}
	}
	if len(t.TurnRewards) > MaxTurnRewards {
		return malformed(what, "%d turn rewards, max %d", len(t.TurnRewards), MaxTurnRewards)
	}
	if t.StartedMS < 0 || t.FinishedMS < t.StartedMS {
		return malformed(what, "times started %d finished %d: want 0 <= started <= finished", t.StartedMS, t.FinishedMS)
	}
	return nil
}

func validRole(r string) bool {
	if len(r) == 0 || len(r) > MaxRoleBytes {
		return false
	}
	for i := 0; i < len(r); i++ {
		if c := r[i]; (c < 'a' || c > 'z') && c != '_' {
			return false
		}
	}
	return true
}

// Encode checks t and returns its canonical bytes and CID.
func (t *Transcript) Encode() ([]byte, cid.Cid, error) {
	if err := t.Check(); err != nil {
		return nil, cid.Undef, err
	}
	var rec any = t
	if t.Format == TranscriptFormatV1 {
		rec = t.v1()
	}
	b, c, err := codec.Encode(rec)
	if err != nil {
		return nil, cid.Undef, fmt.Errorf("transcript: %w", err)
	}
	if len(b) > MaxTranscriptBytes {
		return nil, cid.Undef, malformed("transcript", "%d bytes, max %d", len(b), MaxTranscriptBytes)
	}
	return b, c, nil
}

// DecodeTranscript parses and checks an encoded transcript of either
// format. It never panics.
func DecodeTranscript(data []byte) (*Transcript, error) {
	return decodeTranscript(data, false)
}

// DecodeTranscriptBorrowed is DecodeTranscript whose result shares memory
// with data (codec.UnmarshalBorrowed): its strings are valid only while
// data is. An audit that checks a transcript and keeps nothing of its
// text saves a copy of every message.
func DecodeTranscriptBorrowed(data []byte) (*Transcript, error) {
	return decodeTranscript(data, true)
}

func decodeTranscript(data []byte, borrow bool) (*Transcript, error) {
	t := new(Transcript)
	if err := decodeTranscriptInto(data, borrow, t, nil); err != nil {
		return nil, err
	}
	return t, nil
}

// TranscriptDecoder decodes transcripts as DecodeTranscriptBorrowed does,
// reusing its memory from one to the next: what Decode returns is valid
// until the next Decode, and its strings only while data is. An audit
// decodes every transcript of a ledger and keeps none: allocating each
// one's parts was a third of decoding's cost. The zero value is ready to
// use; a TranscriptDecoder is for one goroutine at a time.
type TranscriptDecoder struct {
	t   Transcript
	mem transcriptMem
}

// Decode decodes and checks data, as DecodeTranscriptBorrowed.
func (d *TranscriptDecoder) Decode(data []byte) (*Transcript, error) {
	d.t = Transcript{}
	if err := decodeTranscriptInto(data, true, &d.t, &d.mem); err != nil {
		return nil, err
	}
	return &d.t, nil
}

// decodeTranscriptInto decodes data into t, which must be zero, taking
// the parts of a format-2 transcript from mem (nil: allocated).
func decodeTranscriptInto(data []byte, borrow bool, t *Transcript, mem *transcriptMem) error {
	if len(data) > MaxTranscriptBytes {
		return malformed("transcript", "%d bytes, max %d", len(data), MaxTranscriptBytes)
	}
	unmarshal := codec.Unmarshal
	if borrow {
		unmarshal = codec.UnmarshalBorrowed
	}
	// Each format has one layout, told apart by its number of keys: the
	// map head is the first byte of both.
	switch {
	case len(data) > 0 && data[0] == mapHeadV1:
		var w transcriptV1
		if err := unmarshal(data, &w); err != nil {
			return fmt.Errorf("transcript: %w: %w", ErrMalformed, err)
		}
		*t = w.transcript()
	default:
		if !decodeTranscriptDirect(data, borrow, t, mem) {
			*t = Transcript{}
			if err := unmarshal(data, t); err != nil {
				return fmt.Errorf("transcript: %w: %w", ErrMalformed, err)
			}
		}
		if t.Format == TranscriptFormatV1 {
			return malformed("transcript", "v is %d, but the record has the seed key of format %d: format %d has none", t.Format, TranscriptFormat, t.Format)
		}
	}
	return t.check(false)
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

func decodeHex32(what string, b []byte, out *[32]byte) error {
	if len(b) != 64 {
		return fmt.Errorf("%s: want 64 hex characters, got %d", what, len(b))
	}
	if _, err := hex.Decode(out[:], b); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
