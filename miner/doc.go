// Package miner is the reference miner: an OpenAI-compatible
// chat-completions server that answers the project's environments by
// solving them (solvers exported by each env package) instead of running a
// model, with strategies that make it right, noisy, random, slow, flaky,
// garbled or hung on purpose. Validators, tests and demos use it as a model
// whose behaviour is known in advance.
//
// Everything random it does is drawn from the rng stream of a key made of
// its --seed and the request (seed field and messages), so the same miner
// answers the same request the same way on every run.
package miner
