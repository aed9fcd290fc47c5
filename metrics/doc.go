// Package metrics holds the Prometheus metrics of a ledger node and of the
// explorer (spec/api.md, "Metrics"): one registry per process with the
// Go runtime and process collectors, the counters, gauges and histograms
// the node updates (appends and their latency, blocks gossiped, received
// and rejected, peers, sync backlog, duel progress, verification failures,
// miner errors by kind), the explorer's HTTP requests, and a collector that
// reads a store's size at scrape time.
//
// Every label takes its values from a fixed set, so a hostile peer or
// miner cannot grow the number of series: a value outside the set is
// counted under "other".
package metrics
