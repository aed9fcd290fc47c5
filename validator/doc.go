// Package validator runs a validator's evaluation loop (spec/validator.md):
// it picks the next contender from the chain's commitment queue, duels it
// against the champion over every env, records each answered challenge as a
// pair of transcripts and each duel as a decision record in the validator's
// ledger, and moves the champion and the ratio to beat.
//
// A duel starts at the chain head (its anchor). Challenge IDs derive from
// that anchor (spec/challenge-id.md), counter 0, 1, 2, ... per env; each is
// put to both miners concurrently, within the inference client's limits,
// and the two transcripts are appended together, so a pair is durable whole
// or not at all. Outcomes feed the duel's sequential test (package duel) in
// counter order. When the duel is decided, Recompute builds its record from
// the samples, which is appended and only then acted on.
//
// Everything the loop knows comes back from the ledger: History folds the
// validator's duel results into the champion and the ratio to beat, and a
// duel interrupted by a crash or a cancelled context is rebuilt from its
// stored transcripts (they carry the duel ID) and resumed without drawing a
// recorded challenge again. `ledger ratio show` prints the same History.
package validator
