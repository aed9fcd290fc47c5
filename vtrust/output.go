package vtrust

import (
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
)

// Output is an epoch's vTrust, duels, champion changes and weights.
type Output struct {
	// Validators are in increasing byte order of their hotkeys.
	Validators []Trust `json:"validators"`
	// Duels are the pairs voted on, ordered by champion, then contender
	// (hotkey bytes, then model hash bytes).
	Duels []Duel `json:"duels"`
	// Total is the vTrust × stake of all the epoch's validators: a
	// contender dethrones only with more than half of it.
	Total Weight `json:"total"`
	// Changes are the champion changes of the epoch, in order.
	Changes []Change `json:"changes"`
	// Champion is the champion at the end of the epoch: the winner.
	Champion duel.Side `json:"champion"`
	// Weights are what set_weights should carry: 65535 to the winner's uid,
	// or nothing when the winner holds no uid (or there is no champion).
	Weights Weights `json:"weights"`
	// IgnoredVotes counts votes of hotkeys that are not validators.
	IgnoredVotes int `json:"ignored_votes"`
}

// Trust is one validator's vTrust for the epoch and what it is made of.
type Trust struct {
	Hotkey keys.PublicKey `json:"hotkey"`
	Stake  uint64         `json:"stake"`
	// Records judged, each counted once at its most severe verdict.
	Agreed    uint64 `json:"agreed"`
	Disagreed uint64 `json:"disagreed"`
	Faulted   uint64 `json:"faulted"`
	// ReexecPPM is the re-execution agreement; HardFault is Faulted > 0,
	// and Evidence holds fault outcomes (at most MaxEvidence).
	ReexecPPM uint32    `json:"reexec_ppm"`
	HardFault bool      `json:"hard_fault"`
	Evidence  []Outcome `json:"evidence"`
	// Votes counts the validator's votes cast in the epoch (one per pair);
	// Standing its votes cast in earlier epochs that still count;
	// Superseded its other results for a pair it voted on; Scored the
	// votes cast in the epoch whose duel has a reference majority, and
	// VotesAgreed those that agree with it.
	Votes       uint32 `json:"votes"`
	Standing    uint32 `json:"standing"`
	Superseded  uint32 `json:"superseded"`
	Scored      uint32 `json:"scored"`
	VotesAgreed uint32 `json:"votes_agreed"`
	// EnvsCompared and EnvsAgreed compare the validator's decided envs with
	// each env's reference majority. They are reported, not part of vTrust
	// (spec/vtrust.md explains why).
	EnvsCompared uint32 `json:"envs_compared"`
	EnvsAgreed   uint32 `json:"envs_agreed"`
	// DecisionPPM is the decision agreement; VTrustPPM is
	// floor(ReexecPPM × DecisionPPM / PPM).
	DecisionPPM uint32 `json:"decision_ppm"`
	VTrustPPM   uint32 `json:"vtrust_ppm"`
}

// Duel is the network's view of one pair.
type Duel struct {
	Champion  duel.Side `json:"champion"`
	Contender duel.Side `json:"contender"`
	// Votes counts the validators with a vote on the pair; Standing those
	// of them whose vote was cast in an earlier epoch.
	Votes    int `json:"votes"`
	Standing int `json:"standing"`
	// LatestStart is the largest start block number among the votes: the
	// walk from champion to winner takes duels in this order.
	LatestStart uint64 `json:"latest_start"`
	// Majority is the reference majority of the winners, weighted by stake
	// × re-execution agreement: "contender", "champion", or "" when the two
	// sides weigh the same.
	Majority string `json:"majority"`
	// Envs is each env's reference majority, "" for none.
	Envs []EnvVote `json:"envs"`
	// For and Against are the vTrust × stake of the votes for the
	// contender and for the champion.
	For     Weight `json:"for"`
	Against Weight `json:"against"`
	// Winner is "contender" when 2 × For exceeds the epoch's Total, else
	// "champion".
	Winner string `json:"winner"`
}

// Change is one dethrone on the path from the epoch's first champion to
// its winner.
type Change struct {
	// Duel indexes Output.Duels.
	Duel int       `json:"duel"`
	From duel.Side `json:"from"`
	To   duel.Side `json:"to"`
}

// Weights are a set_weights call: uids and u16 values, winner takes all.
type Weights struct {
	UIDs   []uint16 `json:"uids"`
	Values []uint16 `json:"values"`
}
