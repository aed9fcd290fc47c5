// Package metricstest reads a node's Prometheus series back, for tests
// that check what a component counted.
package metricstest

import (
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/affine-ledger/ledger/metrics"
)

// Value returns the value of the series of name whose labels are exactly
// labels (pairs), and whether it exists.
func Value(t testing.TB, m *metrics.Metrics, name string, labels ...string) (float64, bool) {
	t.Helper()
	families, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, s := range f.GetMetric() {
			if !sameLabels(s.GetLabel(), labels) {
				continue
			}
			switch {
			case s.Counter != nil:
				return s.Counter.GetValue(), true
			case s.Gauge != nil:
				return s.Gauge.GetValue(), true
			case s.Histogram != nil:
				return float64(s.Histogram.GetSampleCount()), true
			}
		}
	}
	return 0, false
}

func sameLabels(got []*dto.LabelPair, want []string) bool {
	if len(got)*2 != len(want) {
		return false
	}
	for i, l := range got {
		if l.GetName() != want[2*i] || l.GetValue() != want[2*i+1] {
			return false
		}
	}
	return true
}
