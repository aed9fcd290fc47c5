package record

import (
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/envs"
)

// decodeTranscriptDirect reads a format-2 transcript in the one layout the
// codec writes for it, key by key in canonical order, without reflection:
// an audit decodes every transcript of a ledger, and the codec's
// reflective decoder took twice as long as hashing one. It reports false
// for anything else; decodeTranscript then asks the codec, which accepts
// everything this accepts (and format 1), gives the same value, and words
// the error. FuzzTranscriptDirect holds the two to that. The seed, usage
// and slices come from mem, which may be nil (allocated afresh).
func decodeTranscriptDirect(data []byte, borrow bool, t *Transcript, mem *transcriptMem) bool {
	c := codec.NewCursor(data, borrow)
	c.Map(20)
	c.Key("v")
	t.Format = c.Uint(64)
	c.Key("env")
	t.Env = c.Text()
	c.Key("duel")
	c.ByteArray(t.Duel[:])
	c.Key("seed")
	if !c.Null() {
		t.Seed = mem.newSeed()
		c.Map(2)
		c.Key("anchor")
		c.Map(2)
		c.Key("hash")
		c.ByteArray(t.Seed.Anchor.Hash[:])
		c.Key("number")
		t.Seed.Anchor.Number = c.Uint(64)
		c.Key("counter")
		t.Seed.Counter = c.Uint(64)
	}
	c.Key("error")
	t.Error = c.Text()
	c.Key("miner")
	readMiner(c, &t.Miner)
	c.Key("usage")
	if !c.Null() {
		t.Usage = mem.newUsage()
		c.Map(2)
		c.Key("prompt_tokens")
		t.Usage.PromptTokens = c.Uint(64)
		c.Key("completion_tokens")
		t.Usage.CompletionTokens = c.Uint(64)
	}
	c.Key("reason")
	t.Reason = c.Text()
	c.Key("reward")
	t.Reward = c.Int(64)
	c.Key("attempts")
	t.Attempts = uint32(c.Uint(32))
	c.Key("challenge")
	// The codec reads a challenge ID with its UnmarshalCBOR and keeps it
	// if MarshalCBOR gives the item back: for a byte string in its
	// shortest form, exactly when UnmarshalBinary accepts its bytes. A
	// failed cursor gives nil, which UnmarshalBinary refuses.
	if t.Challenge.UnmarshalBinary(c.BytesView()) != nil {
		return false
	}
	c.Key("validator")
	c.ByteArray(t.Validator[:])
	c.Key("invocation")
	c.ByteArray(t.Invocation[:])
	c.Key("latency_ms")
	t.LatencyMS = c.Uint(64)
	c.Key("started_ms")
	t.StartedMS = c.Int(64)
	c.Key("env_version")
	t.EnvVersion = uint16(c.Uint(16))
	c.Key("finished_ms")
	t.FinishedMS = c.Int(64)
	c.Key("http_status")
	t.HTTPStatus = uint16(c.Uint(16))
	c.Key("conversation")
	// A head may claim an element per byte left; past the record's bound
	// the codec words the refusal, allocating only for what it reads.
	n := c.ArrayLen()
	if n > MaxMessages {
		return false
	}
	t.Conversation = mem.messages(n)
	for i := range t.Conversation {
		m := &t.Conversation[i]
		c.Map(2)
		c.Key("role")
		m.Role = c.Text()
		c.Key("content")
		m.Content = c.Text()
	}
	c.Key("turn_rewards")
	if n = c.ArrayLen(); n > MaxTurnRewards {
		return false
	}
	t.TurnRewards = mem.turnRewards(n)
	for i := range t.TurnRewards {
		t.TurnRewards[i] = c.Int(64)
	}
	return c.Err() == nil
}

func readMiner(c *codec.Cursor, m *Miner) {
	c.Map(6)
	c.Key("uid")
	m.UID = uint16(c.Uint(16))
	c.Key("model")
	m.Model = c.Text()
	c.Key("hotkey")
	c.ByteArray(m.Hotkey[:])
	c.Key("endpoint")
	m.Endpoint = c.Text()
	c.Key("revision")
	m.Revision = c.Text()
	c.Key("model_hash")
	m.ModelHash = c.Bytes()
}

// transcriptMem is the memory of a transcript's parts, which a
// TranscriptDecoder reuses from one transcript to the next. A nil
// transcriptMem allocates every part.
type transcriptMem struct {
	seed    Seed
	usage   Usage
	conv    []envs.Message
	rewards []int64
}

func (m *transcriptMem) newSeed() *Seed {
	if m == nil {
		return new(Seed)
	}
	m.seed = Seed{}
	return &m.seed
}

func (m *transcriptMem) newUsage() *Usage {
	if m == nil {
		return new(Usage)
	}
	m.usage = Usage{}
	return &m.usage
}

// messages and turnRewards return a zeroed slice of n, never nil, as the
// codec decodes an empty array.
func (m *transcriptMem) messages(n int) []envs.Message {
	if m == nil {
		return make([]envs.Message, n)
	}
	m.conv = reuse(m.conv, n)
	return m.conv
}

func (m *transcriptMem) turnRewards(n int) []int64 {
	if m == nil {
		return make([]int64, n)
	}
	m.rewards = reuse(m.rewards, n)
	return m.rewards
}

func reuse[T any](s []T, n int) []T {
	if s == nil || cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}
