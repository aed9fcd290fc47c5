// Package explorer serves a ledger store read-only over HTTP: a JSON API
// (spec/api.md) and a web explorer for miners, validators and auditors,
// whose HTML, JavaScript and CSS are embedded in the binary.
//
// Handler(store, opts) is the whole thing, mountable in any server: `ledger
// serve` runs it alone, `ledger node` can mount it beside its status
// endpoint. It never writes to the store.
//
// What the pages show comes from three places:
//
//   - the store's read API, for anything about one record or one chain
//     (blocks, transcripts, proofs, a miner's transcripts): streamed and
//     paginated, never loaded whole;
//   - an index the handler keeps in memory and brings up to date with the
//     store at most every Options.Refresh (per-miner and per-model score
//     sums, duel summaries, which block heights fall in which epoch): it
//     reads each block once, so its cost follows what was appended since
//     the last request;
//   - the chain, when Options.Chain is set: commitments, stake, permits
//     and weights (cached for Options.ChainTTL).
//
// Model output is hostile data. The API returns it only inside JSON
// strings; the pages put it into the DOM with textContent and never parse
// it as HTML, and every response carries a Content-Security-Policy that
// allows scripts, styles and connections to this origin only.
package explorer
