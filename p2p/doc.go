// Package p2p replicates ledger blocks between nodes over libp2p, as
// spec/p2p.md specifies: gossipsub for new blocks and fork proofs, a small
// request/response protocol (/ledger/sync/2) for heads and backfill, peer
// scoring and bans for peers that send invalid data, and a signed binding of
// a node's peer ID to its validator's hotkey. A status names the node's
// chain, so that a peer of another chain with the same netuid is
// disconnected on connect (apart.go), not synced from.
//
// Everything a peer sends reaches storage only through ledger.Store.Put, the
// same checks whether it came by gossip or by sync; a node forwards a gossiped
// block only after its own store accepted it (durably), so any peer that
// relays a block can also serve it and its transcripts.
//
// What goes on the wire (the sync messages, their framing, the gossip
// message, the binding and the limits on each) is package p2p/wire, which
// links no host.
//
// The package owns no storage: Start takes an open *ledger.Store. Package
// node wires the store, the local validator's appender and this package
// together.
package p2p
