package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/affine-ledger/ledger/ledger"
)

// StoreCollector reports a store's size when scraped: chains, transcripts,
// blocks and fork proofs, summed over validators (one series each, whatever
// the number of validators). A scrape reads every head, O(validators).
type StoreCollector struct {
	s                                         *ledger.Store
	chains, transcripts, blocks, equivocating *prometheus.Desc
}

// NewStoreCollector returns a collector of s; register it with
// Metrics.Registry().MustRegister.
func NewStoreCollector(s *ledger.Store) *StoreCollector {
	return &StoreCollector{
		s:            s,
		chains:       prometheus.NewDesc("ledger_store_chains", "Validators' chains in the store.", nil, nil),
		transcripts:  prometheus.NewDesc("ledger_store_transcripts", "Transcripts in the store, all chains.", nil, nil),
		blocks:       prometheus.NewDesc("ledger_store_blocks", "Blocks in the store, all chains.", nil, nil),
		equivocating: prometheus.NewDesc("ledger_store_equivocating_validators", "Validators with a stored fork proof.", nil, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *StoreCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.chains
	ch <- c.transcripts
	ch <- c.blocks
	ch <- c.equivocating
}

// Collect implements prometheus.Collector. A store read error reports an
// invalid metric, which the handler shows as a scrape error.
func (c *StoreCollector) Collect(ch chan<- prometheus.Metric) {
	var chains, transcripts, blocks, eq float64
	for h, err := range c.s.Heads() {
		if err != nil {
			ch <- prometheus.NewInvalidMetric(c.chains, err)
			return
		}
		chains++
		transcripts += float64(h.Checkpoint.Size)
		blocks += float64(h.Block.Height + 1)
		if h.Equivocating {
			eq++
		}
	}
	ch <- prometheus.MustNewConstMetric(c.chains, prometheus.GaugeValue, chains)
	ch <- prometheus.MustNewConstMetric(c.transcripts, prometheus.GaugeValue, transcripts)
	ch <- prometheus.MustNewConstMetric(c.blocks, prometheus.GaugeValue, blocks)
	ch <- prometheus.MustNewConstMetric(c.equivocating, prometheus.GaugeValue, eq)
}
