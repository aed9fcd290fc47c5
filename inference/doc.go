// Package inference asks models for answers: an OpenAI-compatible
// chat-completions client with the validator's fixed sampling parameters,
// bounded retries and concurrency, and a record of every call, plus Play,
// which runs a whole episode of an environment against one endpoint.
//
// The request it sends, the seed derivation, the limits and how failures are
// recorded and scored are specified in spec/inference.md; this package is the
// reference implementation of that document.
//
// A miner is untrusted: whatever it sends back (nothing, garbage, a huge
// body, invalid UTF-8, a hang) ends as a Call whose Error is set, never as a
// panic or a goroutine left waiting. Its reply is data and is never executed.
package inference
