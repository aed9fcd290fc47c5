package inference

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
)

// ChatRequest is the body of POST {base}/chat/completions, as the validator
// sends it and as the reference miner reads it.
type ChatRequest struct {
	Model    string         `json:"model"`
	Messages []envs.Message `json:"messages"`
	// Temperature is always 0: answers should be the model's best, and
	// reproducible as far as the serving stack allows.
	Temperature float64 `json:"temperature"`
	Seed        *int64  `json:"seed,omitempty"`
	MaxTokens   int     `json:"max_tokens,omitempty"`
	Stream      bool    `json:"stream"`
}

// ChatResponse is the success body the reference miner writes. The client
// does not decode into it: DecodeResponse reads answers leniently and
// metadata defensively, since real servers differ in the details.
type ChatResponse struct {
	ID                string       `json:"id"`
	Object            string       `json:"object"`
	Created           int64        `json:"created"`
	Model             string       `json:"model"`
	SystemFingerprint string       `json:"system_fingerprint,omitempty"`
	Choices           []ChatChoice `json:"choices"`
	Usage             Usage        `json:"usage"`
}

// ChatChoice is one completion of a ChatResponse.
type ChatChoice struct {
	Index        int          `json:"index"`
	Message      envs.Message `json:"message"`
	FinishReason string       `json:"finish_reason"`
}

// Usage counts tokens as the server reports them.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
}

// ErrorBody is the OpenAI error envelope, written by the reference miner for
// refused requests and read by the client for error messages.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is the inside of an ErrorBody.
type ErrorDetail struct {
	Message string `json:"message"`
	Type    string `json:"type"`
}

// Seed returns the sampling seed sent with every request of challenge id:
// the first four bytes of SHA-256(binary form of id) read big-endian, with
// the top bit cleared, so the value fits any server's signed 32-bit seed.
// Both models of a duel, and every turn of an episode, get the same seed.
func Seed(id challenge.ID) (int64, error) {
	b, err := id.MarshalBinary()
	if err != nil {
		return 0, fmt.Errorf("seed of %v: %w", id, err)
	}
	sum := sha256.Sum256(b)
	return int64(binary.BigEndian.Uint32(sum[:4]) & 0x7fffffff), nil
}
