// Package proofs reads and checks the proof files of spec/proofs.md offline,
// with no store: an inclusion proof (a transcript is a leaf of its
// validator's log at a signed checkpoint) and a consistency proof (one
// signed checkpoint's log is a prefix of another's), and a fork proof, the
// ledger record of two blocks one validator signed at one height, whose
// file is its DAG-CBOR bytes (fork.go). Package verify makes the first two
// from a store, the store keeps the third; `ledger verify-proof` checks
// them.
//
// It is apart from verify, which links Pebble, so that a proof checker, and
// the fuzz target of the reader, link only the records.
package proofs
