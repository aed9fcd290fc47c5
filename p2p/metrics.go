package p2p

import (
	"sync/atomic"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the network's Prometheus metrics (names under ledger_p2p_).
type metrics struct {
	gossipResults *prometheus.CounterVec
	storedBlocks  *prometheus.CounterVec
	served        *prometheus.CounterVec
	published     prometheus.Counter
	bans          prometheus.Counter
	localAhead    prometheus.Counter
	topicResets   prometheus.Counter
	otherNetworks prometheus.Counter
	peers         prometheus.Gauge

	// The same counts, readable without a registry (Stats).
	accepted, rejected, ignored, fromGossip, fromSync, nBans, nPublished, nLocalAhead, nTopicResets, nOtherNetworks atomic.Int64
}

// Stats are counts since Start.
type Stats struct {
	// Gossip messages from peers, by validation result.
	Accepted, Rejected, Ignored int64
	// Peers' blocks stored, by how they arrived.
	StoredFromGossip, StoredFromSync int64
	Bans, Published                  int64
	// LocalChainAhead counts peers' blocks of the chain this node writes
	// that its store lacks (Network.localChainAhead): an operator's alarm.
	LocalChainAhead int64
	// TopicResets counts connections to static peers closed because
	// gossipsub had lost the peer from the blocks topic (topicGrace).
	TopicResets int64
	// OtherNetworks counts peers disconnected and set apart because their
	// status named another chain (setApart).
	OtherNetworks int64
}

// Stats returns the network's counts since Start.
func (n *Network) Stats() Stats {
	m := n.metrics
	return Stats{
		Accepted: m.accepted.Load(), Rejected: m.rejected.Load(), Ignored: m.ignored.Load(),
		StoredFromGossip: m.fromGossip.Load(), StoredFromSync: m.fromSync.Load(),
		Bans: m.nBans.Load(), Published: m.nPublished.Load(),
		LocalChainAhead: m.nLocalAhead.Load(), TopicResets: m.nTopicResets.Load(),
		OtherNetworks: m.nOtherNetworks.Load(),
	}
}

func (m *metrics) stored(source string) {
	m.storedBlocks.WithLabelValues(source).Inc()
	if source == "sync" {
		m.fromSync.Add(1)
	} else {
		m.fromGossip.Add(1)
	}
}

func (m *metrics) banned() {
	m.bans.Inc()
	m.nBans.Add(1)
}

func (m *metrics) localChainAhead() {
	m.localAhead.Inc()
	m.nLocalAhead.Add(1)
}

func (m *metrics) topicReset() {
	m.topicResets.Inc()
	m.nTopicResets.Add(1)
}

func (m *metrics) otherNetwork() {
	m.otherNetworks.Inc()
	m.nOtherNetworks.Add(1)
}

func (m *metrics) publishedBlock() {
	m.published.Inc()
	m.nPublished.Add(1)
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		gossipResults: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ledger_p2p_gossip_messages_total", Help: "Gossip messages validated, by topic and result (accept, reject, ignore).",
		}, []string{"topic", "result"}),
		storedBlocks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ledger_p2p_blocks_stored_total", Help: "Peers' blocks stored, by source (gossip, sync).",
		}, []string{"source"}),
		served: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ledger_p2p_sync_requests_served_total", Help: "Sync requests answered, by kind.",
		}, []string{"kind"}),
		published: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ledger_p2p_blocks_published_total", Help: "Local blocks published by gossip.",
		}),
		bans: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ledger_p2p_peer_bans_total", Help: "Peers banned for sending invalid data.",
		}),
		localAhead: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ledger_p2p_local_chain_ahead_total", Help: "Peers' blocks of the chain this node writes that its store lacks: the store was lost, or another machine signs with this hotkey.",
		}),
		topicResets: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ledger_p2p_topic_resets_total", Help: "Connections to static peers closed and dialed again because gossipsub had lost the peer from the blocks topic.",
		}),
		otherNetworks: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ledger_p2p_other_network_peers_total", Help: "Peers disconnected and refused for a while because their status named another chain's genesis.",
		}),
		peers: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "ledger_p2p_connected_peers", Help: "Connected peers.",
		}),
	}
	if reg != nil {
		reg.MustRegister(m.gossipResults, m.storedBlocks, m.served, m.published, m.bans, m.localAhead, m.topicResets, m.otherNetworks, m.peers)
	}
	return m
}

func (m *metrics) gossip(topic string, r pubsub.ValidationResult) {
	result := "ignore"
	switch r {
	case pubsub.ValidationAccept:
		result = "accept"
		m.accepted.Add(1)
	case pubsub.ValidationReject:
		result = "reject"
		m.rejected.Add(1)
	default:
		m.ignored.Add(1)
	}
	m.gossipResults.WithLabelValues(topic, result).Inc()
}
