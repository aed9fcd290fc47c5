// Package yuma computes Bittensor's Yuma consensus epoch as subtensor does,
// bit for bit, so that a validator can predict the vtrust, consensus,
// incentive, dividends, bonds and emission the chain will store, and so
// that a local chain can run the same epoch (spec/yuma.md).
//
// Epoch is a pure function of an Input (stake, stored weights and bonds,
// permits, blocks and hyperparameters) to an Output in subtensor's storage
// units. Its arithmetic is subtensor's I32F32 fixed point (Fixed), with the
// same rounding at every step; no floats are involved. MaxUpscale and
// MaxLimited are the weight checks of set_weights, so a local chain stores
// weights exactly as subtensor would.
//
// The reference is opentensor/subtensor at commit 14bc6f9f (spec 425),
// pallets/subtensor/src/epoch/run_epoch.rs (epoch_mechanism) and
// epoch/math.rs. Liquid alpha, commit-reveal masking and subnet mechanisms
// other than the main one are out of scope (spec/yuma.md, Scope).
package yuma
