package devnet

import (
	"time"

	"github.com/affine-ledger/ledger/epoch"
	"github.com/affine-ledger/ledger/validator"
)

// Kind says what an Event reports.
type Kind string

// Event kinds.
const (
	// KindStarted: the chain, the miners and the nodes are up.
	KindStarted Kind = "started"
	// KindDuel: a step of a validator's duel (Duel is set).
	KindDuel Kind = "duel"
	// KindEpoch: a validator ran an epoch (Epoch is set).
	KindEpoch Kind = "epoch"
	// KindTick: the periodic state of the network (Nodes is set).
	KindTick Kind = "tick"
	// KindStopping: the goal is reached (or time is up); the validators
	// stop and the stores converge.
	KindStopping Kind = "stopping"
	// KindVerified: a validator's store was verified (Verified is set).
	KindVerified Kind = "verified"
)

// Event is one thing that happened in the devnet.
type Event struct {
	Kind      Kind                `json:"kind"`
	Elapsed   time.Duration       `json:"elapsed_ns"`
	Validator int                 `json:"validator"`
	Duel      *validator.Progress `json:"duel,omitempty"`
	Epoch     *epoch.Report       `json:"epoch,omitempty"`
	Nodes     []NodeState         `json:"nodes,omitempty"`
	Verified  *StoreSummary       `json:"verified,omitempty"`
	Text      string              `json:"text,omitempty"`
	// URL is validator 0's explorer (KindStarted, with Config.Explorer).
	URL string `json:"url,omitempty"`
}

// NodeState is one node at a tick.
type NodeState struct {
	Peers int `json:"peers"`
	// Chains counts the chains the node's store holds; Blocks sums their
	// heights + 1.
	Chains int    `json:"chains"`
	Blocks uint64 `json:"blocks"`
	// OwnTranscripts is the size of the node's own log.
	OwnTranscripts uint64 `json:"own_transcripts"`
}
