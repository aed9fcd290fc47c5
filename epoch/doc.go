// Package epoch drives a validator's consensus duties once per chain
// epoch (spec/epoch.md): it re-executes the peers' blocks its store holds,
// turning each transcript into a vtrust.Outcome, commits its own latest
// ledger checkpoint on-chain, computes vtrust.Epoch over what its ledger
// holds and sets the winner-takes-all weights, in that order.
//
// The arithmetic lives in vtrust, the chain calls in chain; this package
// only gathers the inputs and sequences the writes.
package epoch
