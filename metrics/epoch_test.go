package metrics_test

import (
	"testing"

	"github.com/affine-ledger/ledger/metrics"
	"github.com/affine-ledger/ledger/metrics/metricstest"
)

func TestEpochUpdates(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	m.EpochDone(7, metrics.EpochWinner)
	m.EpochDone(8, "exploded")
	m.EpochCommitted()
	m.EpochWeights(metrics.WeightsCommitted)
	m.EpochWeights("carved in stone")
	m.EpochRevealed(2)
	m.EpochRevealed(0)
	m.EpochIncomplete()
	m.EpochChainError()
	m.EpochChainError()
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"ledger_epoch", nil, 8},
		{"ledger_epochs_total", []string{"result", "winner"}, 1},
		{"ledger_epochs_total", []string{"result", "no_winner"}, 0},
		{"ledger_epochs_total", []string{"result", "failed"}, 0},
		{"ledger_epochs_total", []string{"result", "other"}, 1},
		{"ledger_epoch_commitments_total", nil, 1},
		{"ledger_epoch_weights_total", []string{"mode", "set"}, 0},
		{"ledger_epoch_weights_total", []string{"mode", "committed"}, 1},
		{"ledger_epoch_weights_total", []string{"mode", "other"}, 1},
		{"ledger_epoch_reveals_total", nil, 2},
		{"ledger_epochs_incomplete_total", nil, 1},
		{"ledger_epoch_chain_errors_total", nil, 2},
	} {
		got, ok := metricstest.Value(t, m, c.name, c.labels...)
		if !ok || got != c.want {
			t.Errorf("%s%v = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	var none *metrics.Metrics
	none.EpochDone(1, metrics.EpochFailed)
	none.EpochCommitted()
	none.EpochWeights(metrics.WeightsSet)
	none.EpochRevealed(1)
	none.EpochIncomplete()
	none.EpochChainError()
}
