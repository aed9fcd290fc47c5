package p2p

import (
	"net"
	"sync"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Score thresholds: one invalid message takes a peer below the gossip and
// publish thresholds, two below the graylist (its RPCs are then ignored).
var scoreThresholds = pubsub.PeerScoreThresholds{
	GossipThreshold:             -10,
	PublishThreshold:            -50,
	GraylistThreshold:           -80,
	AcceptPXThreshold:           100, // no peer exchange: peers are configured
	OpportunisticGraftThreshold: 5,
}

// scoreParams tunes gossipsub's peer scoring for a small network of known
// validators publishing a few blocks a minute: no mesh-delivery-rate
// penalties (rates are too low to estimate), a heavy quadratic penalty per
// invalid message, a small bonus for first deliveries and time in mesh, and
// the application score: banned peers far below the graylist, peers bound to
// a known validator slightly up. Peers on one IP are penalized beyond
// colocation, except loopback (tests, several nodes on one machine).
func scoreParams(topics []string, app func(peer.ID) float64) *pubsub.PeerScoreParams {
	const decayInterval = time.Second
	t := map[string]*pubsub.TopicScoreParams{}
	for _, name := range topics {
		t[name] = &pubsub.TopicScoreParams{
			TopicWeight:                    1,
			TimeInMeshWeight:               0.01,
			TimeInMeshQuantum:              time.Second,
			TimeInMeshCap:                  300,
			FirstMessageDeliveriesWeight:   0.5,
			FirstMessageDeliveriesDecay:    pubsub.ScoreParameterDecayWithBase(10*time.Minute, decayInterval, 0.01),
			FirstMessageDeliveriesCap:      20,
			InvalidMessageDeliveriesWeight: -20,
			InvalidMessageDeliveriesDecay:  pubsub.ScoreParameterDecayWithBase(time.Hour, decayInterval, 0.01),
		}
	}
	return &pubsub.PeerScoreParams{
		Topics:                      t,
		TopicScoreCap:               20,
		AppSpecificScore:            app,
		AppSpecificWeight:           1,
		IPColocationFactorWeight:    -5,
		IPColocationFactorThreshold: 3,
		IPColocationFactorWhitelist: loopback(),
		BehaviourPenaltyWeight:      -5,
		BehaviourPenaltyThreshold:   5,
		BehaviourPenaltyDecay:       pubsub.ScoreParameterDecayWithBase(10*time.Minute, decayInterval, 0.01),
		DecayInterval:               decayInterval,
		DecayToZero:                 0.01,
		RetainScore:                 30 * time.Minute,
	}
}

func loopback() []*net.IPNet {
	var out []*net.IPNet
	for _, s := range []string{"127.0.0.0/8", "::1/128"} {
		_, n, _ := net.ParseCIDR(s)
		out = append(out, n)
	}
	return out
}

// scoreBoard holds the peer scores gossipsub last reported (it reports
// every heartbeat, including disconnected peers whose non-positive score it
// retains).
type scoreBoard struct {
	mu sync.Mutex
	m  map[peer.ID]float64
}

func (b *scoreBoard) report(m map[peer.ID]float64) {
	b.mu.Lock()
	b.m = m
	b.mu.Unlock()
}

// Score returns gossipsub's score of p as of its last report (at most a
// heartbeat old); false if gossipsub holds no score for p (it never spoke
// gossipsub to us, or left with a positive score).
func (n *Network) Score(p peer.ID) (float64, bool) {
	n.scores.mu.Lock()
	defer n.scores.mu.Unlock()
	s, ok := n.scores.m[p]
	return s, ok
}
