// Package wire is what ledger nodes send each other (spec/p2p.md): the
// requests and responses of the sync protocol and their length-prefixed
// frames, the gossip message that carries a block with its objects, the
// signed binding of a peer ID to a validator's hotkey, and the limits on
// each. Decoders check every limit and never panic.
//
// It is apart from package p2p, which runs the libp2p host, so that the
// decoders' fuzz targets link no network stack.
package wire
