package wire

import "github.com/affine-ledger/ledger/ledger/record"

// Limits of spec/p2p.md#limits. The message limits are the protocol's: a
// message over one is invalid and its sender penalized. The rest bound what
// a peer can make this node spend.
const (
	// MaxGossipBytes bounds the data of one gossip message. Gossipsub's own
	// limit (MaxRPCBytes) bounds the whole RPC, which adds framing and
	// control messages; the gap leaves room for them.
	MaxGossipBytes = 1_000_000
	// MaxRPCBytes is gossipsub's maximum RPC size, the default 1 MiB.
	MaxRPCBytes = 1 << 20

	// MaxRequestBytes bounds one sync request frame.
	MaxRequestBytes = 1 << 20
	// MaxResponseBytes bounds one sync response frame.
	MaxResponseBytes = 16 << 20
	// ResponseBudget is the summed size of the byte strings (blocks,
	// objects) a responder puts in one response before it stops adding
	// more; the first item is always included. An item is at most
	// MaxObjectBytes, so a response stays well under MaxResponseBytes.
	ResponseBudget = 8 << 20
	// MaxObjectBytes bounds one object (transcript, decision or fork proof)
	// sent over sync.
	MaxObjectBytes = max(record.MaxTranscriptBytes, record.MaxDecisionBytes, record.MaxForkProofBytes)

	// MaxBlocksPerRequest bounds the count of a blocks request and the
	// blocks of its response.
	MaxBlocksPerRequest = 512
	// MaxObjectsPerRequest bounds the CIDs of an objects request and the
	// objects of any response.
	MaxObjectsPerRequest = 8192
	// MaxHeads bounds the heads of a status; a node with more validators
	// sends the first MaxHeads in validator order.
	MaxHeads = 1024
	// MaxForks bounds the fork proof CIDs of a status.
	MaxForks = 1024
	// MaxErrorMessage bounds the text of an error response.
	MaxErrorMessage = 1024
)
