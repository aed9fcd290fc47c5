package miner

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/inference"
	"github.com/affine-ledger/ledger/rng"
)

// MaxRequestBytes bounds a request body.
const MaxRequestBytes = 8 << 20

// maxSeen bounds the memory of how often each request was seen (for flaky);
// past it the memory starts over, which only makes some retries draw a
// fault they already drew.
const maxSeen = 1 << 16

// Config configures a Server.
type Config struct {
	Strategy Strategy
	// Model is the model name served (and required of requests that name
	// one); DefaultModel(Strategy) when empty.
	Model string
	// ModelHash stands for the weights' hash (the revision a miner
	// commits); served as system_fingerprint. DefaultModelHash when empty.
	// Give two miners the same hash to make a copy on purpose.
	ModelHash string
	// Seed varies every random draw.
	Seed uint64
	// Solvers answer the envs, tried in order.
	Solvers []Solver
}

// DefaultModel is the model name of a miner with strategy s.
func DefaultModel(s Strategy) string { return "ledger-miner/" + s.String() }

// DefaultModelHash is the model hash of a miner with strategy s and seed:
// hex SHA-256("ledger/miner/model/v1" || 0x00 || strategy || 0x00 || BE64 seed).
func DefaultModelHash(s Strategy, seed uint64) string {
	h := sha256.New()
	h.Write([]byte("ledger/miner/model/v1\x00" + s.String() + "\x00"))
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	return hex.EncodeToString(h.Sum(nil))
}

// Server is an http.Handler serving POST /v1/chat/completions and
// GET /v1/models. It is safe for concurrent use.
type Server struct {
	cfg  Config
	mux  *http.ServeMux
	quit chan struct{}
	once sync.Once

	mu   sync.Mutex
	seen map[[32]byte]uint64
}

// NewServer returns a server for cfg, filling in the default model name and
// hash.
func NewServer(cfg Config) *Server {
	if cfg.Model == "" {
		cfg.Model = DefaultModel(cfg.Strategy)
	}
	if cfg.ModelHash == "" {
		cfg.ModelHash = DefaultModelHash(cfg.Strategy, cfg.Seed)
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux(), quit: make(chan struct{}), seen: map[[32]byte]uint64{}}
	s.mux.HandleFunc("POST /v1/chat/completions", s.chat)
	s.mux.HandleFunc("GET /v1/models", s.models)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no route %s %s", r.Method, r.URL.Path))
	})
	return s
}

// Config returns the configuration in force, defaults filled in.
func (s *Server) Config() Config { return s.cfg }

// Close releases requests held by slow and hang, so that an http.Server
// shutdown does not wait for them.
func (s *Server) Close() { s.once.Do(func() { close(s.quit) }) }

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data": []map[string]any{{
			"id": s.cfg.Model, "object": "model", "owned_by": "ledger",
			"revision": s.cfg.ModelHash, "strategy": s.cfg.Strategy.String(),
		}},
	})
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	req, err := readRequest(w, r, s.cfg.Model)
	if err != nil {
		var re *requestError
		if errors.As(err, &re) {
			writeError(w, re.status, re.kind, re.Error())
		}
		return
	}
	key := requestKey(s.cfg.Seed, req.Seed, req.Messages)
	st := s.cfg.Strategy
	var content string
	switch st.Kind {
	case Hang:
		select {
		case <-r.Context().Done():
		case <-s.quit:
			s.closing(w)
		}
		return
	case Garbage:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.Write(garbageBody(answerStream(key)))
		return
	case Flaky:
		if faultStream(key, s.attempt(key)).Chance(st.PPM, ppmScale) {
			writeError(w, http.StatusInternalServerError, "server_error", "flaky miner: injected failure")
			return
		}
		content = solve(s.cfg.Solvers, req.Messages)
	case Slow:
		if !s.wait(r.Context(), st.Delay) {
			s.closing(w)
			return
		}
		content = solve(s.cfg.Solvers, req.Messages)
	case Noisy:
		draw := answerStream(key)
		if draw.Chance(st.PPM, ppmScale) {
			content = solve(s.cfg.Solvers, req.Messages)
		} else {
			content = wrong(s.cfg.Solvers, req.Messages, draw)
		}
	case Random:
		content = randomText(answerStream(key))
	default:
		content = solve(s.cfg.Solvers, req.Messages)
	}
	writeJSON(w, http.StatusOK, s.response(key, req.Messages, content))
}

// attempt returns how many times key was seen before, and counts this time.
func (s *Server) attempt(key [32]byte) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.seen) >= maxSeen {
		clear(s.seen)
	}
	n := s.seen[key]
	s.seen[key] = n + 1
	return n
}

// closing answers 503 to a request cut short by Close; a request whose
// client hung up gets nothing, since nobody reads it.
func (s *Server) closing(w http.ResponseWriter) {
	select {
	case <-s.quit:
		writeError(w, http.StatusServiceUnavailable, "shutting_down", "server closing")
	default:
	}
}

// wait sleeps d unless the request or the server ends first.
func (s *Server) wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
	case <-s.quit:
	}
	return false
}

func (s *Server) response(key [32]byte, messages []envs.Message, content string) inference.ChatResponse {
	var prompt int64
	for _, m := range messages {
		prompt += int64(len(strings.Fields(m.Content)))
	}
	completion := int64(len(strings.Fields(content)))
	return inference.ChatResponse{
		ID:                "chatcmpl-" + hex.EncodeToString(key[:12]),
		Object:            "chat.completion",
		Created:           time.Now().Unix(),
		Model:             s.cfg.Model,
		SystemFingerprint: s.cfg.ModelHash,
		Choices: []inference.ChatChoice{{
			Message:      envs.Message{Role: envs.RoleAssistant, Content: content},
			FinishReason: "stop",
		}},
		Usage: inference.Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion},
	}
}

var words = []string{
	"the", "answer", "is", "maybe", "perhaps", "likely", "move", "value", "true", "false",
	"heads", "tails", "x", "y", "left", "right", "yes", "no", "because", "then",
}

// randomText is what a model that ignores the question says: 3 to 12 tokens,
// each a word or an integer below a million.
func randomText(r *rng.Stream) string {
	n := int(r.IntRange(3, 12))
	out := make([]string, n)
	for i := range out {
		if r.Chance(1, 3) {
			out[i] = fmt.Sprint(r.IntRange(0, 999_999))
		} else {
			out[i] = words[r.Pick(len(words))]
		}
	}
	return strings.Join(out, " ")
}

// garbageBody is a 200 body no client can read as a chat completion: raw
// bytes, JSON cut short, an HTML error page, or a completion without
// choices, drawn from r.
func garbageBody(r *rng.Stream) []byte {
	switch r.Pick(4) {
	case 0:
		b := []byte{0xff}
		for n := r.IntRange(16, 512); n > 0; n-- {
			b = append(b, byte(r.Uniform(256)))
		}
		return b
	case 1:
		return fmt.Appendf(nil, `{"id":"chatcmpl-%d","choices":[{"message":{"content":"%s`, r.Uint64(), randomText(r))
	case 2:
		return []byte("<html><body><h1>502 Bad Gateway</h1></body></html>")
	default:
		return []byte(`{"object":"chat.completion","choices":[]}`)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":{"message":"encode failure","type":"server_error"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

func writeError(w http.ResponseWriter, status int, kind, msg string) {
	writeJSON(w, status, inference.ErrorBody{Error: inference.ErrorDetail{Message: msg, Type: kind}})
}
