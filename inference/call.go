package inference

import "errors"

// Call records one question put to a miner: the parameters sent, how it
// went, and what came back. It is stored in transcripts as DAG-CBOR, so it
// holds integers and valid UTF-8 text only; every string that came from the
// miner is cleaned and bounded. Field meanings are normative
// (spec/inference.md).
type Call struct {
	Model     string `cbor:"model"`
	Seed      int64  `cbor:"seed"`
	MaxTokens int64  `cbor:"max_tokens"`
	// Attempts is the number of HTTP requests made (0 when the call was
	// cancelled while waiting for a concurrency slot).
	Attempts int64 `cbor:"attempts"`
	// Status is the HTTP status of the last attempt, 0 when none arrived.
	Status int64 `cbor:"status"`
	// LatencyMS is the last attempt's time from sending the request to
	// having read the body; ElapsedMS is the whole call, waits included.
	LatencyMS int64 `cbor:"latency_ms"`
	ElapsedMS int64 `cbor:"elapsed_ms"`
	// ErrorKind is "" on success, else one of the Kind* constants; Error
	// says what went wrong in words.
	ErrorKind string `cbor:"error_kind"`
	Error     string `cbor:"error"`

	FinishReason     string `cbor:"finish_reason"`
	ServedModel      string `cbor:"served_model"`
	Fingerprint      string `cbor:"fingerprint"`
	PromptTokens     int64  `cbor:"prompt_tokens"`
	CompletionTokens int64  `cbor:"completion_tokens"`
	TotalTokens      int64  `cbor:"total_tokens"`

	// BodyBytes is how many bytes of the last body were read: at most
	// ReadLimit+1, which means the body was over the limit.
	BodyBytes int64 `cbor:"body_bytes"`
	// Raw is the start of the last body, at most KeepRaw bytes, as sent
	// (it may be invalid UTF-8 or cut mid-character).
	Raw []byte `cbor:"raw"`
}

// Error kinds, as recorded in Call.ErrorKind.
const (
	KindTimeout   = "timeout"   // an attempt outlived Options.Timeout
	KindStatus    = "status"    // HTTP status other than 2xx
	KindTransport = "transport" // connection refused, reset, TLS, ...
	KindTooLarge  = "too_large" // 2xx body over Options.ReadLimit, or answer over Options.MaxAnswerBytes
	KindDecode    = "decode"    // 2xx body that is not a chat completion
	KindCanceled  = "canceled"  // the caller's context ended
	KindRequest   = "request"   // the request could not be built (bad endpoint or ID)
	KindUnasked   = "unasked"   // not sent: the caller gave up on the miner (Unasked)
)

// Sentinel errors returned by Complete, one per kind, for errors.Is.
var (
	ErrTimeout   = errors.New("miner timed out")
	ErrStatus    = errors.New("miner answered with an HTTP error")
	ErrTransport = errors.New("miner unreachable")
	ErrTooLarge  = errors.New("miner response too large")
	ErrCanceled  = errors.New("call canceled")
	ErrRequest   = errors.New("bad request")
)

// ErrUnasked is the error of the call Unasked records.
var ErrUnasked = errors.New("miner not asked")

func kindOf(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrCanceled):
		return KindCanceled
	case errors.Is(err, ErrTimeout):
		return KindTimeout
	case errors.Is(err, ErrStatus):
		return KindStatus
	case errors.Is(err, ErrTooLarge):
		return KindTooLarge
	case errors.Is(err, ErrDecode):
		return KindDecode
	case errors.Is(err, ErrRequest):
		return KindRequest
	default:
		return KindTransport
	}
}
