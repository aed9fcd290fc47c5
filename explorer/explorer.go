package explorer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/metrics"
)

// Defaults of Options.
const (
	// DefaultTempo is the epoch length, in chain blocks, of the
	// ledger-only vTrust view when no chain says otherwise (Bittensor's
	// usual tempo).
	DefaultTempo = 360
	// DefaultRefresh bounds how often the index reads new blocks.
	DefaultRefresh = 2 * time.Second
	// DefaultChainTTL is how long chain reads are reused.
	DefaultChainTTL = 12 * time.Second
)

// Options configure Handler. The zero value serves the store alone.
type Options struct {
	// Chain, if set, adds on-chain commitments, stake, permits and weights.
	// The handler does not close it.
	Chain chain.Chain
	// Metrics receives the handler's request metrics and is served on
	// /metrics (a store collector is registered in it); nil makes a new
	// registry.
	Metrics *metrics.Metrics
	// Pprof serves net/http/pprof under /debug/pprof/.
	Pprof bool
	// Frontier moves the ratio to beat (default duel.DefaultFrontierParams).
	Frontier duel.FrontierParams
	// Tempo is the epoch length for the vTrust view; 0 takes the chain's,
	// or DefaultTempo without a chain.
	Tempo uint64
	// Refresh bounds how often the index catches up with the store
	// (default DefaultRefresh; negative: on every request, for tests).
	Refresh time.Duration
	// ChainTTL is how long chain reads are reused (default
	// DefaultChainTTL).
	ChainTTL time.Duration
	// Logger receives problems found while indexing (default
	// slog.Default()).
	Logger *slog.Logger
}

// server is the state behind Handler.
type server struct {
	s       *ledger.Store
	opts    Options
	sched   chain.Schedule // how the chain numbers epochs: the vTrust view's
	log     *slog.Logger
	index   *index
	chain   *chainCache
	epochs  *epochCache
	metrics *metrics.Metrics
}

// Handler returns the explorer and its API over s (spec/api.md). It reads
// the chain's tempo once, here, when Options.Tempo is 0 and a chain is
// set.
func Handler(s *ledger.Store, opts Options) (http.Handler, error) {
	if s == nil {
		return nil, errors.New("explorer: no store")
	}
	if opts.Frontier == (duel.FrontierParams{}) {
		opts.Frontier = duel.DefaultFrontierParams()
	}
	if err := opts.Frontier.Validate(); err != nil {
		return nil, fmt.Errorf("explorer: %w", err)
	}
	if opts.Refresh == 0 {
		opts.Refresh = DefaultRefresh
	}
	if opts.ChainTTL <= 0 {
		opts.ChainTTL = DefaultChainTTL
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Metrics == nil {
		opts.Metrics = metrics.New()
	}
	if err := opts.Metrics.Registry().Register(metrics.NewStoreCollector(s)); err != nil {
		var dup prometheus.AlreadyRegisteredError
		if !errors.As(err, &dup) {
			return nil, fmt.Errorf("explorer: metrics: %w", err)
		}
	}
	sched := chain.TempoSchedule(opts.Tempo)
	if opts.Tempo == 0 {
		opts.Tempo = DefaultTempo
		sched = chain.TempoSchedule(DefaultTempo)
		if opts.Chain != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			p, err := opts.Chain.Params(ctx)
			cancel()
			if err != nil {
				return nil, fmt.Errorf("explorer: chain params: %w", err)
			}
			if p.Tempo > 0 {
				opts.Tempo, sched = p.Tempo, p.Schedule()
			}
		}
	}
	srv := &server{s: s, opts: opts, sched: sched, log: opts.Logger, metrics: opts.Metrics}
	srv.index = newIndex(s, sched, opts.Refresh, opts.Logger)
	srv.chain = newChainCache(opts.Chain, opts.ChainTTL)
	srv.epochs = newEpochCache()
	return srv.routes(), nil
}

// routes builds the mux; every route is GET (and so HEAD), and other
// methods on the API are a JSON 405.
func (srv *server) routes() http.Handler {
	mux := http.NewServeMux()
	api := func(pattern string, h func(w http.ResponseWriter, r *http.Request) error) {
		mux.Handle("GET "+pattern, apiHandler(h))
	}
	api("/api/v1/status", srv.status)
	api("/api/v1/validators", srv.validators)
	api("/api/v1/validators/{hotkey}", srv.validator)
	api("/api/v1/validators/{hotkey}/blocks", srv.blocks)
	api("/api/v1/validators/{hotkey}/blocks/{height}", srv.blockAt)
	api("/api/v1/validators/{hotkey}/transcripts", srv.validatorTranscripts)
	api("/api/v1/blocks/{cid}", srv.block)
	api("/api/v1/transcripts/{cid}", srv.transcript)
	api("/api/v1/transcripts/{cid}/proof", srv.proof)
	api("/api/v1/miners", srv.miners)
	api("/api/v1/miners/{hotkey}", srv.miner)
	api("/api/v1/miners/{hotkey}/transcripts", srv.minerTranscripts)
	api("/api/v1/duels", srv.duels)
	api("/api/v1/duels/{cid}", srv.duel)
	api("/api/v1/duels/{cid}/transcripts", srv.duelTranscripts)
	api("/api/v1/vtrust", srv.vtrust)
	api("/api/v1/leaderboard", srv.leaderboard)
	api("/api/v1/forks", srv.forks)
	api("/api/v1/forks/{cid}", srv.forkProof)
	api("/api/v1/chain", srv.chainInfo)
	mux.Handle("GET /api/", apiHandler(func(http.ResponseWriter, *http.Request) error {
		return errNotFound("no such API endpoint (spec/api.md lists them)")
	}))
	mux.Handle("GET /healthz", apiHandler(srv.healthz))
	mux.Handle("GET /metrics", srv.metrics.Handler())
	if srv.opts.Pprof {
		mux.HandleFunc("GET /debug/pprof/", pprof.Index)
		mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	}
	mux.Handle("GET /", staticHandler())
	return srv.middleware(getOnly(mux))
}

// middleware sets the security headers, counts requests by route and turns
// a panic into a 500 without taking the process down.
func (srv *server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				srv.log.Error("explorer: handler panic", "path", r.URL.Path, "panic", p)
				if !rec.wrote {
					writeError(rec, http.StatusInternalServerError, "internal error")
				}
			}
			route := r.Pattern
			if route == "" {
				route = "unmatched"
			}
			srv.metrics.HTTPRequest(route, rec.code, time.Since(start))
		}()
		next.ServeHTTP(rec, r)
	})
}

// ContentSecurityPolicy is sent with every response: scripts, styles,
// images and fetches from this origin only, no inline script or style, no
// plugins, no framing, no form posts.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

type statusRecorder struct {
	http.ResponseWriter
	code  int
	wrote bool
}

func (r *statusRecorder) WriteHeader(code int) {
	if !r.wrote {
		r.code, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.ResponseWriter.Write(b)
}

// Flush lets streaming handlers (pprof's trace) flush.
func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
