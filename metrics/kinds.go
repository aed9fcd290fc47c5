package metrics

import (
	"slices"

	"github.com/affine-ledger/ledger/inference"
)

// Other is the label value of anything outside a label's fixed set.
const Other = "other"

// Sources of peers' blocks (label "source").
const (
	SourceGossip = "gossip"
	SourceSync   = "sync"
)

// Reasons a peer's block is refused (label "reason").
const (
	RejectMalformed     = "malformed"      // does not decode, or breaks a record rule
	RejectSignature     = "signature"      // signature does not verify
	RejectParent        = "parent"         // does not extend its parent (prev, time, anchor)
	RejectMissingParent = "missing_parent" // parent not stored yet
	RejectCheckpoint    = "checkpoint"     // checkpoint size or root wrong
	RejectObject        = "object"         // a linked transcript or decision missing or altered
	RejectChallenge     = "challenge"      // a challenge reused with the same miner
	RejectEquivocation  = "equivocation"   // a second block at a stored height
	RejectValidator     = "validator"      // not a validator we accept
)

// Kinds of verification failure (label "kind").
const (
	VerifyBlock        = "block"        // a block rule, signature or checkpoint
	VerifyTranscript   = "transcript"   // a transcript rule
	VerifyReexec       = "reexec"       // a transcript does not re-execute to its record
	VerifySeed         = "seed"         // a challenge seed no recorded anchor derives
	VerifyDecision     = "decision"     // a duel result does not recompute
	VerifyEquivocation = "equivocation" // a fork proof
	VerifyProof        = "proof"        // an offline proof
)

// Duel outcomes for the contender (label "outcome").
const (
	OutcomeWin  = "win"
	OutcomeLoss = "loss"
	OutcomeDraw = "draw"
)

// Duel winners (label "winner").
const (
	WinnerContender = "contender"
	WinnerChampion  = "champion"
)

var (
	sources       = []string{SourceGossip, SourceSync}
	rejectReasons = []string{RejectMalformed, RejectSignature, RejectParent, RejectMissingParent, RejectCheckpoint,
		RejectObject, RejectChallenge, RejectEquivocation, RejectValidator}
	verifyKinds = []string{VerifyBlock, VerifyTranscript, VerifyReexec, VerifySeed, VerifyDecision, VerifyEquivocation, VerifyProof}
	// minerErrorKinds are the inference client's error kinds
	// (inference.Call.ErrorKind).
	minerErrorKinds = []string{inference.KindTimeout, inference.KindStatus, inference.KindTransport, inference.KindTooLarge,
		inference.KindDecode, inference.KindCanceled, inference.KindRequest}
	outcomes = []string{OutcomeWin, OutcomeLoss, OutcomeDraw}
	winners  = []string{WinnerContender, WinnerChampion}
)

// oneOf returns v if it is in set, else Other.
func oneOf(v string, set []string) string {
	if slices.Contains(set, v) {
		return v
	}
	return Other
}

// maxEnvLabels bounds the env label: envs come from the release's registry
// (a handful), but a duel's env names are data, so the first few distinct
// names are kept and the rest counted as Other.
const maxEnvLabels = 64
