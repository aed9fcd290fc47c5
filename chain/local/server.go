package local

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
)

// ProtocolVersion is the version of the JSON-over-HTTP protocol
// (spec/chain.md, "Protocol").
const ProtocolVersion = 2

// maxBody bounds a request body: the largest transaction (a reveal of
// maxVec uids, values and salt) is under 64 KiB in hex.
const maxBody = 64 << 10

// Info is the answer to GET /v1/info: what a client needs before it signs.
type Info struct {
	Protocol    int          `json:"protocol"`
	GenesisHash chain.Hash   `json:"genesis_hash"`
	Params      chain.Params `json:"params"`
}

// RegisterRequest is the body of POST /v1/admin/register.
type RegisterRequest struct {
	Hotkey    keys.PublicKey `json:"hotkey"`
	Stake     uint64         `json:"stake"`
	Validator bool           `json:"validator"`
}

// errorCodes maps the chain's errors to the protocol's error codes and
// HTTP statuses; the client maps the codes back, so errors.Is works across
// the wire.
var errorCodes = []struct {
	err    error
	code   string
	status int
}{
	{chain.ErrNotFound, "not_found", http.StatusNotFound},
	{chain.ErrNotRegistered, "not_registered", http.StatusForbidden},
	{chain.ErrNoPermit, "no_permit", http.StatusForbidden},
	{chain.ErrSpaceLimit, "space_limit", http.StatusTooManyRequests},
	{chain.ErrTooManyFields, "too_many_fields", http.StatusBadRequest},
	{chain.ErrBadWeights, "bad_weights", http.StatusBadRequest},
	{chain.ErrTooFewWeights, "too_few_weights", http.StatusBadRequest},
	{chain.ErrVersionKey, "version_key", http.StatusBadRequest},
	{chain.ErrCommitRevealOn, "commit_reveal_on", http.StatusConflict},
	{chain.ErrCommitRevealOff, "commit_reveal_off", http.StatusConflict},
	{chain.ErrTooManyCommits, "too_many_commits", http.StatusTooManyRequests},
	{chain.ErrNoCommit, "no_commit", http.StatusConflict},
	{chain.ErrCommitMismatch, "commit_mismatch", http.StatusConflict},
	{chain.ErrRevealTooEarly, "reveal_too_early", http.StatusConflict},
	{chain.ErrRevealExpired, "reveal_expired", http.StatusConflict},
	{chain.ErrBadSignature, "bad_signature", http.StatusUnauthorized},
	{chain.ErrStaleNonce, "stale_nonce", http.StatusConflict},
	{chain.ErrBadRequest, "bad_request", http.StatusBadRequest},
	{chain.ErrStateUnavailable, "state_unavailable", http.StatusGone},
	{chain.ErrUnsupported, "unsupported", http.StatusNotImplemented},
	{errUnauthorized, "unauthorized", http.StatusUnauthorized},
}

var errUnauthorized = errors.New("admin token missing or wrong")

type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Server serves a Chain over HTTP. Admin requests (register, advance)
// need the bearer token given to NewServer; with an empty token they are
// refused.
type Server struct {
	c     *Chain
	token string
	mux   *http.ServeMux
}

// NewServer returns the HTTP handler of c.
func NewServer(c *Chain, adminToken string) *Server {
	s := &Server{c: c, token: adminToken, mux: http.NewServeMux()}
	s.mux.HandleFunc("GET /v1/info", s.info)
	s.mux.HandleFunc("GET /v1/params", s.read(func(r *http.Request) (any, error) { return c.Params(r.Context()) }))
	s.mux.HandleFunc("GET /v1/head", s.read(func(r *http.Request) (any, error) { return c.Head(r.Context()) }))
	s.mux.HandleFunc("GET /v1/blocks/{n}", s.read(func(r *http.Request) (any, error) {
		n, err := strconv.ParseUint(r.PathValue("n"), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: block number %q", chain.ErrBadRequest, r.PathValue("n"))
		}
		h, err := c.BlockHash(r.Context(), n)
		return chain.Block{Number: n, Hash: h}, err
	}))
	s.mux.HandleFunc("GET /v1/metagraph", s.state(func(r *http.Request, st chain.Reader) (any, error) {
		m, err := st.Metagraph(r.Context())
		if m != nil && m.Neurons == nil {
			m.Neurons = []chain.Neuron{}
		}
		return m, err
	}))
	s.mux.HandleFunc("GET /v1/commitments", s.state(func(r *http.Request, st chain.Reader) (any, error) {
		cs, err := st.Commitments(r.Context())
		if cs == nil {
			cs = []chain.Commitment{}
		}
		return cs, err
	}))
	s.mux.HandleFunc("GET /v1/commitments/{hotkey}", s.state(func(r *http.Request, st chain.Reader) (any, error) {
		hk, err := keys.ParseSS58(r.PathValue("hotkey"))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", chain.ErrBadRequest, err)
		}
		return st.Commitment(r.Context(), hk)
	}))
	s.mux.HandleFunc("GET /v1/weights", s.state(func(r *http.Request, st chain.Reader) (any, error) {
		ws, err := st.Weights(r.Context())
		if ws == nil {
			ws = []chain.WeightRow{}
		}
		return ws, err
	}))
	s.mux.HandleFunc("GET /v1/nonces/{hotkey}", s.read(func(r *http.Request) (any, error) {
		hk, err := keys.ParseSS58(r.PathValue("hotkey"))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", chain.ErrBadRequest, err)
		}
		return map[string]uint64{"nonce": c.Nonce(hk)}, nil
	}))
	s.mux.HandleFunc("POST /v1/tx", s.tx)
	s.mux.HandleFunc("POST /v1/admin/register", s.admin(s.register))
	s.mux.HandleFunc("POST /v1/admin/advance", s.admin(s.advance))
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

func (s *Server) info(w http.ResponseWriter, r *http.Request) {
	p, _ := s.c.Params(r.Context())
	writeJSON(w, http.StatusOK, Info{Protocol: ProtocolVersion, GenesisHash: s.c.GenesisHash(), Params: p})
}

func (s *Server) read(f func(*http.Request) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, err := f(r)
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, v)
	}
}

// state is read for the state reads: at the head, or as of block n with
// ?at=n.
func (s *Server) state(f func(*http.Request, chain.Reader) (any, error)) http.HandlerFunc {
	return s.read(func(r *http.Request) (any, error) {
		at, ok := r.URL.Query()["at"]
		if !ok {
			return f(r, s.c)
		}
		if len(at) != 1 {
			return nil, fmt.Errorf("%w: %d at parameters, want one", chain.ErrBadRequest, len(at))
		}
		n, err := strconv.ParseUint(at[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: block number %q", chain.ErrBadRequest, at[0])
		}
		st, err := s.c.At(r.Context(), n)
		if err != nil {
			return nil, err
		}
		return f(r, st)
	})
}

func (s *Server) tx(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		writeError(w, err)
		return
	}
	var tx Tx
	if err := tx.UnmarshalJSON(body); err != nil {
		writeError(w, fmt.Errorf("%w: %v", chain.ErrBadRequest, err))
		return
	}
	block, err := s.c.Submit(tx)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]uint64{"block": block})
}

func (s *Server) admin(f func(http.ResponseWriter, []byte)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if s.token == "" || !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) != 1 {
			writeError(w, errUnauthorized)
			return
		}
		body, err := readBody(r)
		if err != nil {
			writeError(w, err)
			return
		}
		f(w, body)
	}
}

func (s *Server) register(w http.ResponseWriter, body []byte) {
	var req RegisterRequest
	if err := strictJSON(body, &req); err != nil {
		writeError(w, fmt.Errorf("%w: register: %v", chain.ErrBadRequest, err))
		return
	}
	uid, err := s.c.Register(req.Hotkey, req.Stake, req.Validator)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]uint16{"uid": uid})
}

// maxAdvance bounds one advance request.
const maxAdvance = 100000

func (s *Server) advance(w http.ResponseWriter, body []byte) {
	var req struct {
		Blocks int `json:"blocks"`
	}
	if err := strictJSON(body, &req); err != nil || req.Blocks < 1 || req.Blocks > maxAdvance {
		writeError(w, fmt.Errorf("%w: advance: want {\"blocks\": 1..%d}", chain.ErrBadRequest, maxAdvance))
		return
	}
	if err := s.c.Advance(req.Blocks); err != nil {
		writeError(w, err)
		return
	}
	head, _ := s.c.Head(context.Background())
	writeJSON(w, http.StatusOK, head)
}

func readBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading body: %v", chain.ErrBadRequest, err)
	}
	if len(body) > maxBody {
		return nil, fmt.Errorf("%w: body over %d bytes", chain.ErrBadRequest, maxBody)
	}
	return body, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

func writeError(w http.ResponseWriter, err error) {
	var body errorBody
	body.Error.Code, body.Error.Message = "internal", err.Error()
	status := http.StatusInternalServerError
	for _, e := range errorCodes {
		if errors.Is(err, e.err) {
			body.Error.Code, status = e.code, e.status
			break
		}
	}
	writeJSON(w, status, body)
}
