// Package chain is the validator's view of the public chain a subnet lives
// on: who is registered with what stake, the current block, commitments
// (miners announce the model they serve, validators the head of their
// ledger), weights with commit-reveal, and the consensus results (vtrust,
// incentive) of each epoch. spec/chain.md is normative.
//
// Chain is the interface; backends implement it in their own packages:
//
//   - chain/local: an embedded chain for tests and devnets, in-process or
//     served over JSON/HTTP on loopback (ledger chain serve). It runs the
//     Yuma epoch every tempo.
//   - chain/subtensor: a client of a real Bittensor node over its websocket
//     RPC, signing extrinsics with the hotkey.
//
// Open picks a backend from a chain spec string ("local",
// "local+http://127.0.0.1:9944", "subtensor+wss://host:443/netuid=N").
// Backends register themselves when imported, as database/sql drivers do,
// because they import this package for its types.
//
// The pure pieces a validator needs beside the interface live here too:
// the commitment formats (MinerCommitment, ValidatorCommitment and the
// on-chain Data fields), the commit-reveal hash (CommitHash), weight
// scaling (ScaleWeights) and the contender queue (Contenders).
package chain
