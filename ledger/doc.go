// Package ledger is a validator's tamper-evident record of its work: signed,
// hash-chained blocks of transcripts in a Pebble store, each block a signed
// checkpoint of an RFC 6962 Merkle log (spec/ledger.md for the records,
// spec/store.md for the key layout).
//
// The records (Transcript, Block, ForkProof) and the pure checks on them
// live in package record, which links no store.
//
// # Writing
//
// The local validator appends through an Appender (Store.NewAppender):
// Append blocks until the block holding the request is durable, Add returns
// a Future. Concurrent requests are group-committed into one block and one
// fsync. Peers' blocks go through Store.Put, which checks everything (see
// its doc) and returns ErrInvalidBlock with a *BlockError,
// *MissingParentError or *EquivocationError. Nothing is ever rewritten or
// deleted. A write Pebble fails to make durable (an I/O error) makes the
// store refuse all later writes (ErrWriteFailed, Store.Err); errors Pebble
// cannot survive (a failed WAL rotation or MANIFEST write) crash the
// process. Either way a reopened store holds everything acknowledged.
//
// A store holds one network's ledger (record.Network: a subnet of one
// public chain): WithNetwork binds it, or the first block it takes does.
// Blocks of another network, or of block format 1, which names none, are
// refused (ErrWrongNetwork), never taken for equivocation.
//
// # Reading (for verify, proofs, CAR export, explorers)
//
// Readers see only durable data: a Pebble snapshot published after each
// batch's fsync returned. Streams are Go iterators (iter.Seq2) holding one
// snapshot for their whole run; stop early to release it.
//
//	Heads()                        every validator's head, by key
//	Head(v)                        one head (ErrNotFound if none)
//	Blocks(v, from)                v's blocks by height, streaming
//	BlockAt(v, h), Block(cid)      one block: decoded, CID-checked, raw bytes
//	Transcript(cid)                decoded, CID-checked, with its TranscriptRef
//	Object(cid)                    any record's bytes exactly as stored (not
//	                               re-hashed: an auditor sees tampering)
//	Leaves(v, from)                v's log in leaf order (TranscriptRef)
//	TranscriptsByMiner(m)          every validator's transcripts of miner m
//	TranscriptsByChallenge(id)     every validator's run of challenge id
//	TranscriptsByDuel(d)           every validator's transcripts of duel d
//	ForkProofs()                   every fork proof: of format 2 equivocation
//	                               evidence, of format 1 (a store written
//	                               before block format 2) none
//	LeafHash(v, i), Frontier(v, n) Merkle leaf hash; compact range at size n
//	InclusionProof(v, i, n)        audit path of leaf i in the log of size n
//	ConsistencyProof(v, n1, n2)    proof that size n1 is a prefix of size n2
//
// Package ledgertest has a raw writer for tests that tamper with a closed
// store; package recordtest has deterministic sample transcripts.
package ledger
