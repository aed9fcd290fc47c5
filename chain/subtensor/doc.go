// Package subtensor is the chain.Chain of a real Bittensor node: it reads
// a subnet's metagraph, commitments and weights from the node's storage and
// writes commitments and weights as signed extrinsics, over the node's
// websocket JSON-RPC (through go-substrate-rpc-client's client). The
// runtime metadata (v14) is read by this package's own bounded decoder:
// the library's allocates whatever length the node announces.
// spec/chain.md, "Subtensor", is normative.
//
// The encodings are this package's own and pure: storage keys, call
// arguments, the signed extensions (Substrate's and the ones subtensor
// registers, which carry no data), the signing payload and the version-4
// extrinsic. Each is tested against vectors computed independently of this
// code. The RPC part has not been run against a live node: no node can run
// where this was written.
//
// A write returns once a block includes its extrinsic, and then says
// whether the block applied its call: the weight calls read the block's
// System.Events (events.go decodes them with the metadata's types) and
// turn a dispatch error into package chain's refusal (applied.go);
// SetCommitment reads the commitment back at that block. Commit-reveal v3
// (timelocked weights) is not implemented: subnets that require it refuse
// commit_weights.
package subtensor
