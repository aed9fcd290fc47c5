package node

import (
	"fmt"
	"time"

	"github.com/affine-ledger/ledger/metrics"
	"github.com/affine-ledger/ledger/p2p"
)

// metricsEvery is how often the network's counts reach the ledger metrics.
const metricsEvery = time.Second

// metricsLoop watches the store (a write failure leaves it refusing every
// write: the node reports it and stops being healthy) and copies the network's counts into the node's ledger metrics
// (ledger_blocks_*, ledger_peers), which the explorer and dashboards read
// beside the p2p layer's own ledger_p2p_* series.
func (n *Node) metricsLoop() {
	defer n.bg.Done()
	t := time.NewTicker(metricsEvery)
	defer t.Stop()
	var last p2p.Stats
	storeFailed := false
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
		}
		st := n.net.Stats()
		m := n.metrics
		for range st.Published - last.Published {
			m.Gossiped()
		}
		for range st.StoredFromGossip - last.StoredFromGossip {
			m.Received(metrics.SourceGossip)
		}
		for range st.StoredFromSync - last.StoredFromSync {
			m.Received(metrics.SourceSync)
		}
		// Gossip validation does not say which rule a message broke.
		for range st.Rejected - last.Rejected {
			m.Rejected(metrics.Other)
		}
		m.SetPeers(len(n.net.Peers()))
		last = st
		if err := n.store.Err(); err != nil && !storeFailed {
			storeFailed = true
			n.fail(fmt.Errorf("store: %w", err))
		}
	}
}
