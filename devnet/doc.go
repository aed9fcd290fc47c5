// Package devnet runs a whole network on one machine: a local chain, N
// validators as real libp2p nodes on loopback (each with its own hotkey
// and Pebble store under Dir/vK), and M reference miners of different
// strengths serving the OpenAI chat API over real HTTP, registered and
// committed on the chain. The validators duel the miners, gossip and
// re-execute each other's blocks, commit their checkpoints and set
// weights each epoch, until a champion has been crowned and weights are
// set. It is what `ledger devnet` and `make demo` run, and what the tests
// of the whole system run.
//
// Layout of Dir:
//
//	chain/            the local chain's state
//	vK/               validator K's node data directory (store/, p2p/)
//	vK/hotkey.json    validator K's hotkey (a development key)
//	summary.json      the summary of the last run
package devnet
