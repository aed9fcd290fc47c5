// Package verify audits ledgers (spec/verify.md): it recomputes everything a
// validator's signed chain commits to, from the bytes alone, and reports the
// first failure of every chain.
//
// The core (Verifier) is fed one chain at a time, block by block in height
// order, each block with a function that fetches the objects it links. It
// keeps O(log n) state per chain (the Merkle compact range, a bounded window
// of challenge seeds), so memory stays flat however long the chains are; the
// one set that grows, the challenge IDs a validator has used, lives in a
// ChallengeSet that the command line backs with a scratch Pebble directory.
// Two drivers feed it: VerifyStore walks a Pebble store through its read
// API, VerifyCAR streams an archive written by package archive. Before a
// store is opened, CheckFiles checks its Pebble files byte for byte: the
// audit reads only what the chains link, and Pebble takes some damage to
// its logs for a crash's torn tail.
//
// The package also builds the offline proofs of spec/proofs.md from a
// store: a transcript's inclusion in its validator's log and the
// consistency of two checkpoints, each carried with the signed blocks that
// commit to them. Package verify/proofs reads and checks them.
package verify
