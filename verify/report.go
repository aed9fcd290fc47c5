package verify

import (
	"fmt"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
)

// Failure is one failed check, located as precisely as the check allows.
type Failure struct {
	// Validator is the SS58 address of the chain's validator, "" when the
	// failure is not tied to a chain (a damaged store file, an archive
	// that cannot be read on).
	Validator string `json:"validator"`
	Height    uint64 `json:"height"`
	// CID is the block's CID (for equivocation: the fork proof's), "" when
	// unknown.
	CID string `json:"cid"`
	// Transcript is the index of the transcript in the block's list, -1
	// when the failure concerns the block (or a decision) itself.
	Transcript int    `json:"transcript"`
	Reason     string `json:"reason"`
}

func (f Failure) String() string {
	// Not tied to a chain: a store's or an archive's own problem, which
	// the reason names.
	where := "ledger"
	if f.Validator != "" {
		where = fmt.Sprintf("validator %s height %d", f.Validator, f.Height)
	}
	if f.CID != "" {
		where += " block " + f.CID
	}
	if f.Transcript >= 0 {
		where += fmt.Sprintf(" transcript %d", f.Transcript)
	}
	return where + ": " + f.Reason
}

// Report is the outcome of a verification run. Its JSON form is the output
// of `ledger verify --json` (spec/verify.md#output).
type Report struct {
	OK          bool    `json:"ok"`
	Chains      int     `json:"chains"`
	Blocks      int     `json:"blocks"`
	Transcripts int     `json:"transcripts"`
	Bytes       int64   `json:"bytes"`
	Seconds     float64 `json:"seconds"`
	// Failures holds at most one entry per chain (its first failure) plus
	// one per recorded fork proof and one per problem of an archive's own
	// (a section out of place, a root, an archive that could not be read
	// to its end).
	Failures []Failure `json:"failures"`

	// Reexecuted counts transcripts replayed through their env.
	Reexecuted int `json:"reexecuted"`
	// ForkProofs counts recorded fork proofs (each also a failure but
	// those counted in ForkProofsNotEvidence).
	ForkProofs int `json:"fork_proofs"`
	// ForkProofsNotEvidence counts the valid fork proofs of format 1 (a
	// store written before block format 2, or its archive, holds them):
	// their blocks name no network, so they prove no equivocation and
	// fail no one.
	ForkProofsNotEvidence int `json:"fork_proofs_not_evidence"`
	// SeedsExact counts format-2 transcripts, whose recorded seed was
	// checked exactly (spec/verify.md#seeds). Format 1 records no seed:
	// SeedsDerived counts those whose seed the window search rederived
	// from a recorded anchor, SeedsUnverified those it could not (not a
	// failure unless Options.StrictSeeds).
	SeedsExact      int `json:"seeds_exact"`
	SeedsDerived    int `json:"seeds_derived"`
	SeedsUnverified int `json:"seeds_unverified"`
	// DuelResults counts the duel results checked (spec/verify.md, D2);
	// OutcomesChecked their outcome letters held to the chain's
	// transcripts, OutcomesUnbacked those whose two transcripts the
	// audited part of the chain does not hold (not a failure).
	DuelResults      int `json:"duel_results"`
	OutcomesChecked  int `json:"outcomes_checked"`
	OutcomesUnbacked int `json:"outcomes_unbacked"`
	// Commitments counts the on-chain commitments held to the ledger
	// (ledger verify --chain; each that does not match is also a failure),
	// nil when none were asked for.
	Commitments *int `json:"commitments,omitempty"`
	// CommitmentsWithoutChain lists (SS58) the validators whose on-chain
	// commitment names a chain the store does not hold, so not checked;
	// not a failure. With --chain only.
	CommitmentsWithoutChain []string `json:"commitments_without_chain,omitempty"`
	// Network is the ledger's network (spec/verify.md, N2): the one the
	// auditor asserted (Options.Genesis and Netuid), else the store's
	// recorded one, else its first format-2 block's; nil when it holds no
	// format-2 block and none was asserted (format-1 blocks name none).
	Network *record.Network `json:"network,omitempty"`
	// BelowFrom lists the chains a store audit from a height (StoreScope.
	// From) did not check because they end below it, in validator order;
	// nil without From. Chains counts the others only.
	BelowFrom []ChainEnd `json:"chains_below_from,omitempty"`
	// TornLog is the store's newest write-ahead log if it ends torn
	// (CheckFiles): no failure, but what followed was not replayed.
	TornLog *TornLog `json:"torn_log,omitempty"`
}

// ChainEnd is a chain by its validator and the height of its head.
type ChainEnd struct {
	Validator string `json:"validator"`
	Height    uint64 `json:"height"`
}

func (r *Report) fail(f Failure) {
	r.Failures = append(r.Failures, f)
}

func blockFailure(v keys.PublicKey, height uint64, c cid.Cid, transcript int, format string, args ...any) Failure {
	f := Failure{Height: height, Transcript: transcript, Reason: fmt.Sprintf(format, args...)}
	if v != (keys.PublicKey{}) {
		f.Validator = v.String()
	}
	if c.Defined() {
		f.CID = c.String()
	}
	return f
}
