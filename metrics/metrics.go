package metrics

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/affine-ledger/ledger/challenge"
)

// Metrics is a registry and the metrics registered in it. Every method is
// safe for concurrent use; a nil *Metrics accepts every update and drops
// it, so code can update metrics without checking whether it was given any.
type Metrics struct {
	reg *prometheus.Registry

	appends        prometheus.Counter
	appendRequests prometheus.Counter
	appendFailures prometheus.Counter
	appendSeconds  prometheus.Histogram
	gossiped       prometheus.Counter
	received       *prometheus.CounterVec
	rejected       *prometheus.CounterVec
	peers          prometheus.Gauge
	syncBacklog    prometheus.Gauge
	duelsActive    prometheus.Gauge
	duelOutcomes   *prometheus.CounterVec
	duelsDecided   *prometheus.CounterVec
	verifyFailures *prometheus.CounterVec
	minerErrors    *prometheus.CounterVec
	httpRequests   *prometheus.CounterVec
	httpSeconds    *prometheus.HistogramVec
	epoch          epochMetrics

	envMu sync.Mutex
	envs  map[string]bool
}

// New returns a registry with the Go and process collectors and every
// metric of this package at zero.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), envs: map[string]bool{}}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	f := factory{m.reg}
	m.appends = f.counter("ledger_appended_transcripts_total", "Transcripts the local validator appended (durable).")
	m.appendRequests = f.counter("ledger_append_requests_total", "Append requests answered (durable or failed).")
	m.appendFailures = f.counter("ledger_append_failures_total", "Append requests that failed.")
	m.appendSeconds = f.histogram("ledger_append_seconds", "Time from an append request to its block being durable.",
		prometheus.ExponentialBuckets(0.0005, 2, 16))
	m.gossiped = f.counter("ledger_blocks_gossiped_total", "Local blocks published to peers.")
	m.received = f.counterVec("ledger_blocks_received_total", "Peers' blocks stored, by how they arrived (gossip, sync).", "source")
	m.rejected = f.counterVec("ledger_blocks_rejected_total", "Peers' blocks refused, by reason.", "reason")
	m.peers = f.gauge("ledger_peers", "Connected peers.")
	m.syncBacklog = f.gauge("ledger_sync_backlog_blocks", "Blocks known to exist at peers and not yet stored.")
	m.duelsActive = f.gauge("ledger_duels_active", "Duels in progress.")
	m.duelOutcomes = f.counterVec("ledger_duel_challenges_total", "Duel challenges answered by both miners, by env and outcome for the contender.", "env", "outcome")
	m.duelsDecided = f.counterVec("ledger_duels_decided_total", "Duels decided, by winner.", "winner")
	m.verifyFailures = f.counterVec("ledger_verify_failures_total", "Verification failures, by kind.", "kind")
	m.minerErrors = f.counterVec("ledger_miner_errors_total", "Failed requests to miners, by kind (the inference client's error kinds).", "kind")
	m.httpRequests = f.counterVec("ledger_http_requests_total", "Explorer and API requests, by route and status code.", "route", "code")
	m.httpSeconds = f.histogramVec("ledger_http_request_seconds", "Explorer and API request latency, by route.",
		prometheus.ExponentialBuckets(0.0005, 2.5, 12), "route")
	for _, s := range sources {
		m.received.WithLabelValues(s)
	}
	for _, r := range rejectReasons {
		m.rejected.WithLabelValues(r)
	}
	for _, k := range verifyKinds {
		m.verifyFailures.WithLabelValues(k)
	}
	for _, k := range minerErrorKinds {
		m.minerErrors.WithLabelValues(k)
	}
	for _, w := range winners {
		m.duelsDecided.WithLabelValues(w)
	}
	m.registerEpoch(f)
	return m
}

// Registry returns the registry, to register more collectors (the p2p
// layer's, a StoreCollector) or to gather.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in the Prometheus exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Appended records one append request answered after d: n transcripts
// made durable, or a failure.
func (m *Metrics) Appended(n int, d time.Duration, err error) {
	if m == nil {
		return
	}
	m.appendRequests.Inc()
	m.appendSeconds.Observe(d.Seconds())
	if err != nil {
		m.appendFailures.Inc()
		return
	}
	m.appends.Add(float64(n))
}

// Gossiped counts a local block published to peers.
func (m *Metrics) Gossiped() {
	if m != nil {
		m.gossiped.Inc()
	}
}

// Received counts a peer's block stored; source is SourceGossip or
// SourceSync.
func (m *Metrics) Received(source string) {
	if m != nil {
		m.received.WithLabelValues(oneOf(source, sources)).Inc()
	}
}

// Rejected counts a peer's block refused; reason is one of the Reject*
// constants.
func (m *Metrics) Rejected(reason string) {
	if m != nil {
		m.rejected.WithLabelValues(oneOf(reason, rejectReasons)).Inc()
	}
}

// SetPeers sets the number of connected peers.
func (m *Metrics) SetPeers(n int) {
	if m != nil {
		m.peers.Set(float64(n))
	}
}

// SetSyncBacklog sets the number of blocks peers have that we lack.
func (m *Metrics) SetSyncBacklog(n uint64) {
	if m != nil {
		m.syncBacklog.Set(float64(n))
	}
}

// DuelStarted and DuelEnded track duels in progress; DuelEnded with
// winner "" (an abandoned duel) only lowers the gauge.
func (m *Metrics) DuelStarted() {
	if m != nil {
		m.duelsActive.Inc()
	}
}

// DuelEnded marks a duel finished; winner is WinnerContender,
// WinnerChampion, or "" for a duel abandoned undecided.
func (m *Metrics) DuelEnded(winner string) {
	if m == nil {
		return
	}
	m.duelsActive.Dec()
	if winner != "" {
		m.duelsDecided.WithLabelValues(oneOf(winner, winners)).Inc()
	}
}

// DuelOutcome counts one challenge of a duel's env with its outcome for
// the contender: OutcomeWin, OutcomeLoss or OutcomeDraw.
func (m *Metrics) DuelOutcome(env, outcome string) {
	if m != nil {
		m.duelOutcomes.WithLabelValues(m.envLabel(env), oneOf(outcome, outcomes)).Inc()
	}
}

// VerifyFailed counts a verification failure of one of the Verify* kinds.
func (m *Metrics) VerifyFailed(kind string) {
	if m != nil {
		m.verifyFailures.WithLabelValues(oneOf(kind, verifyKinds)).Inc()
	}
}

// MinerError counts a failed request to a miner by the inference client's
// error kind (inference.Call.ErrorKind).
func (m *Metrics) MinerError(kind string) {
	if m != nil && kind != "" {
		m.minerErrors.WithLabelValues(oneOf(kind, minerErrorKinds)).Inc()
	}
}

// HTTPRequest records one request to route (a fixed pattern, never the
// raw path) answered with code after d.
func (m *Metrics) HTTPRequest(route string, code int, d time.Duration) {
	if m == nil {
		return
	}
	m.httpRequests.WithLabelValues(route, strconv.Itoa(code)).Inc()
	m.httpSeconds.WithLabelValues(route).Observe(d.Seconds())
}

// envLabel keeps valid env names until maxEnvLabels distinct ones were
// seen.
func (m *Metrics) envLabel(env string) string {
	if challenge.CheckEnvName(env) != nil {
		return Other
	}
	m.envMu.Lock()
	defer m.envMu.Unlock()
	if m.envs[env] {
		return env
	}
	if len(m.envs) >= maxEnvLabels {
		return Other
	}
	m.envs[env] = true
	return env
}

type factory struct{ reg prometheus.Registerer }

func (f factory) counter(name, help string) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
	f.reg.MustRegister(c)
	return c
}

func (f factory) gauge(name, help string) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
	f.reg.MustRegister(g)
	return g
}

func (f factory) histogram(name, help string, buckets []float64) prometheus.Histogram {
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets})
	f.reg.MustRegister(h)
	return h
}

func (f factory) counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	f.reg.MustRegister(c)
	return c
}

func (f factory) histogramVec(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
	f.reg.MustRegister(h)
	return h
}
