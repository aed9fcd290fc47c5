// Package vtrust turns a ledger's epoch into consensus: how far each
// validator can be trusted (vTrust), which champion the network chose, and
// the winner-takes-all weights every honest validator sets
// (spec/vtrust.md).
//
// Two kinds of evidence feed it. Outcome records are auditors' verdicts on
// other validators' records, from re-executing transcripts and checking
// duel results against them; a deterministic result that does not
// reproduce is a hard fault. Votes are the duel results validators
// recorded, reduced to who played, who won and who took each env.
//
// Epoch is a pure function of an Input to an Output, with integer
// arithmetic only (ppm, floors, exact 128-bit sums) and no dependence on
// the order of its inputs: every honest validator holding the same ledger
// computes the same vTrust, the same winner and the same weights. Storage,
// gossip and the chain are the node's business.
package vtrust
