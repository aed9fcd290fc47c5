package metrics

import "github.com/prometheus/client_golang/prometheus"

// Results of an epoch the validator ran (label "result").
const (
	// EpochWinner: computed, and the weights for its winner set or
	// committed.
	EpochWinner = "winner"
	// EpochNoWinner: computed, with no weights to write: no champion, or
	// a winner that holds no uid.
	EpochNoWinner = "no_winner"
	// EpochFailed: a chain read or write, or the computation, failed.
	EpochFailed = "failed"
)

// Ways weights reach the chain (label "mode").
const (
	WeightsSet       = "set"
	WeightsCommitted = "committed"
)

var (
	epochResults = []string{EpochWinner, EpochNoWinner, EpochFailed}
	weightModes  = []string{WeightsSet, WeightsCommitted}
)

// epochMetrics are the epoch driver's series: what an operator looks at
// to see that the validator commits, sets weights and keeps up with the
// chain.
type epochMetrics struct {
	last        prometheus.Gauge
	results     *prometheus.CounterVec
	commitments prometheus.Counter
	weights     *prometheus.CounterVec
	reveals     prometheus.Counter
	incomplete  prometheus.Counter
	chainErrors prometheus.Counter
}

func (m *Metrics) registerEpoch(f factory) {
	e := &m.epoch
	e.last = f.gauge("ledger_epoch", "The last epoch the validator ran (spec/epoch.md numbering).")
	e.results = f.counterVec("ledger_epochs_total", "Epochs the validator ran, by result: winner (weights written), no_winner, failed.", "result")
	e.commitments = f.counter("ledger_epoch_commitments_total", "Checkpoints the validator committed on-chain (an unchanged one is not written again).")
	e.weights = f.counterVec("ledger_epoch_weights_total", "Weight rows the validator wrote, by mode: set, or committed for a later reveal.", "mode")
	e.reveals = f.counter("ledger_epoch_reveals_total", "Weight commits the validator revealed.")
	e.incomplete = f.counter("ledger_epochs_incomplete_total", "Epochs computed before the store held every validator's blocks of the window.")
	e.chainErrors = f.counter("ledger_epoch_chain_errors_total", "Failed reads of the chain's head or parameters by the epoch loop.")
	for _, r := range epochResults {
		e.results.WithLabelValues(r)
	}
	for _, w := range weightModes {
		e.weights.WithLabelValues(w)
	}
}

// EpochDone records that the validator ran epoch k with result, one of
// the Epoch* constants.
func (m *Metrics) EpochDone(k uint64, result string) {
	if m == nil {
		return
	}
	m.epoch.last.Set(float64(k))
	m.epoch.results.WithLabelValues(oneOf(result, epochResults)).Inc()
}

// EpochCommitted counts a checkpoint committed on-chain.
func (m *Metrics) EpochCommitted() {
	if m != nil {
		m.epoch.commitments.Inc()
	}
}

// EpochWeights counts a weight row written in mode, WeightsSet or
// WeightsCommitted.
func (m *Metrics) EpochWeights(mode string) {
	if m != nil {
		m.epoch.weights.WithLabelValues(oneOf(mode, weightModes)).Inc()
	}
}

// EpochRevealed counts n weight commits revealed.
func (m *Metrics) EpochRevealed(n int) {
	if m != nil && n > 0 {
		m.epoch.reveals.Add(float64(n))
	}
}

// EpochIncomplete counts an epoch computed with peers' blocks missing.
func (m *Metrics) EpochIncomplete() {
	if m != nil {
		m.epoch.incomplete.Inc()
	}
}

// EpochChainError counts a failed chain read of the epoch loop.
func (m *Metrics) EpochChainError() {
	if m != nil {
		m.epoch.chainErrors.Inc()
	}
}
