// Package interop checks that a libp2p implementation other than ours can
// join a node's gossip from spec/p2p.md alone: a js-libp2p node
// (subscribe.mjs, npm versions pinned in package.json) subscribes to a Go
// node, receives a block and checks its encoding, CID, objects and message
// ID. Run it with `make interop-p2p` (it needs node and npm); `go test`
// skips it unless LEDGER_INTEROP_P2P=1.
package interop
