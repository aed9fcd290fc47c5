package p2p

import (
	"time"

	"github.com/affine-ledger/ledger/p2p/wire"
)

// Resource limits of the Go node (spec/p2p.md#limits).
const (
	// MaxStreamsPerPeer bounds the sync streams a responder serves one
	// peer at once, and MaxStreams those it serves in all. A stream holds
	// its slot from the moment it opens until its response is written, so
	// a peer that never sends its request, or never reads the answer,
	// holds only its own slots.
	MaxStreamsPerPeer = 8
	MaxStreams        = 64
	// MaxStreamsOutsideSet bounds the slots held at once by peers whose
	// status did not bind them to a validator of the node's set: peer IDs
	// cost nothing, and eight of them would otherwise hold every slot
	// while a validator's node waits for a block.
	MaxStreamsOutsideSet = MaxStreams / 2
	// MaxResponseMemory bounds the bytes of sync responses a responder
	// holds at once, over all peers: a blocks or objects response reserves
	// maxResponseBody before it is built, then exactly its size until it is
	// written. Past it, requests get error 3.
	MaxResponseMemory = 64 << 20
	// MaxRefusals is how many requests of one peer a responder refuses
	// (error 2 or 3, for the peer's own excess of streams or requests)
	// before it bans the peer; the budget refills at RefusalRefill per
	// second. An honest peer backs off when refused and never comes near.
	MaxRefusals   = 100
	RefusalRefill = 10

	// MaxBackfillMemory bounds the bytes of blocks and objects that
	// backfills hold at once, over all chains, from fetching them until
	// they are stored: a fetch waits for its bound (80 MiB) to fit. It
	// fits every worker's fetch at once, so that a fetch waits only for
	// blocks being stored, never for another fetch: a peer that stalls
	// requests (for RequestTimeout) would otherwise stall every backfill.
	MaxBackfillMemory = maxBackfills * (syncBudget + 2*wire.ResponseBudget)
	// MaxGossipFetchMemory bounds the objects fetched for gossiped blocks
	// (those whose message carried none) and not yet stored, over all
	// validations at once: two fetches' bounds (80 MiB each). Without it,
	// each of MaxValidations validations could hold a block's 64 MiB, and
	// one key holder signing blocks at that limit made a node take in
	// gigabytes. A validation waits for its reservation within its own
	// deadline; past it, the block comes by backfill.
	MaxGossipFetchMemory = 2 * (syncBudget + 2*wire.ResponseBudget)

	// MaxClaimsPerPeer bounds the chains a node remembers one peer holds
	// (from its statuses and the blocks it forwarded); claims of validators
	// outside the node's set are not kept.
	MaxClaimsPerPeer = wire.MaxHeads
	// MaxPendingForkProofs bounds the received fork proofs a node keeps
	// while it backfills the chains they concern. A proof dropped here is
	// offered again by every peer that holds it, in its status.
	MaxPendingForkProofs = 64
	// MaxValidations bounds the gossip messages validated at once, per
	// topic; gossipsub drops (ignores, without penalty) messages past it.
	MaxValidations = 64
)

// maxResponseBody bounds an encoded blocks or objects response: the items
// within ResponseBudget, plus at most 5 bytes of CBOR header for each of
// the most items a response holds, plus the map around them.
const maxResponseBody = wire.ResponseBudget + 5*(wire.MaxBlocksPerRequest+wire.MaxObjectsPerRequest) + 64

// Timing of spec/p2p.md.
const (
	// RequestTimeout bounds a whole sync exchange, from opening the stream
	// to reading the last byte of the response.
	RequestTimeout = 30 * time.Second
	// RequestReadTimeout bounds how long a responder waits for the request.
	RequestReadTimeout = 10 * time.Second
	// RefuseTimeout bounds how long a responder spends on a stream it
	// refuses for lack of slots: reading the request, writing error 3.
	RefuseTimeout = time.Second
	// BanDuration is how long a peer that sent invalid data is refused.
	BanDuration = 10 * time.Minute
	// ApartDuration is how long a peer whose status named another chain
	// is neither dialed nor admitted (setApart). A store's network never
	// changes, so neither would the answer; a peer whose operator fixes
	// its configuration is back within this.
	ApartDuration = 10 * time.Minute
)
