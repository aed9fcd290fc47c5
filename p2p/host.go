package p2p

import (
	"fmt"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/connmgr"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/p2p/muxer/yamux"
	"github.com/libp2p/go-libp2p/p2p/security/noise"
	libp2pquic "github.com/libp2p/go-libp2p/p2p/transport/quic"
	"github.com/libp2p/go-libp2p/p2p/transport/tcp"
)

// NewHost builds the libp2p host spec/p2p.md#host describes: TCP and QUIC,
// Noise, yamux, identify, no relay, no NAT port mapping, the given identity
// and connection gater (nil for none). It listens on nothing: the caller
// registers its protocol handlers first and then listens
// (host.Network().Listen), so no peer reaches it half-ready.
//
// Its TCP transport listens without SO_REUSEPORT, which go-libp2p sets by
// default: with it a second node (another process, or another host in
// this one) binds a port a node already listens on, the kernel hands each
// incoming connection to either, and a peer dialing the first node's
// address reaches the second about half the time ("peer id mismatch").
// Without it the second node's listen fails with "address already in
// use". Dials then leave from an ephemeral port rather than the listening
// one, which a node that is dialed at its listen address does not need.
// QUIC binds its UDP sockets without SO_REUSEPORT already (quicreuse's
// "reuseport" is about dialing from the listening socket, which stays).
func NewHost(identity crypto.PrivKey, gater connmgr.ConnectionGater) (host.Host, error) {
	opts := []libp2p.Option{
		libp2p.Identity(identity),
		libp2p.NoListenAddrs,
		libp2p.Transport(tcp.NewTCPTransport, tcp.DisableReuseport()),
		libp2p.Transport(libp2pquic.NewTransport),
		libp2p.Security(noise.ID, noise.New),
		libp2p.Muxer(yamux.ID, yamux.DefaultTransport),
		libp2p.DisableRelay(),
		// The node exports its own metrics; libp2p's are process-wide
		// and would collide between in-process nodes.
		libp2p.DisableMetrics(),
		libp2p.UserAgent("affine-ledger"),
	}
	if gater != nil {
		opts = append(opts, libp2p.ConnectionGater(gater))
	}
	h, err := libp2p.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("libp2p host: %w", err)
	}
	return h, nil
}
