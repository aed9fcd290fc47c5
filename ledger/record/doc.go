// Package record is the ledger's records and the pure checks on them, with
// no store: what an auditor, a proof checker or a peer's decoder needs
// (spec/ledger.md).
//
// Transcript is one challenge put to one miner, with the whole conversation
// and its scoring. Block links transcripts and decision records (opaque
// DAG-CBOR for now), the previous block and a public chain anchor, and
// carries the Checkpoint (size, root) of the validator's whole log; it is
// signed (sr25519) over BlockDomain || 0x00 || the canonical header.
// ForkProof holds two conflicting signed blocks (of format 1, kept
// checkable, it proves no equivocation). All are canonical DAG-CBOR
// (package codec); the Decode functions check limits and never panic.
//
// The Merkle log is RFC 6962 over transcript CIDs: CheckpointOf, LeafHash,
// Tree (a running compact range, TreeFromFrontier), VerifyInclusion and
// VerifyConsistency.
//
// It is its own package, apart from the Pebble store (package ledger), so
// that what decodes peers' bytes links nothing else: its fuzz targets run
// four to six times as many inputs a second as they did inside the store's
// package, whose binary carries Pebble's coverage counters too.
package record
