package validator

import (
	"fmt"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/vtrust"
)

// CheckDecision is the decision check a ledger store holding validators'
// chains should be opened with (ledger.WithDecisionCheck): a decision
// record whose type is "duel" must be a duel result that duel.Decode
// accepts (canonical, and every derived field equal to its
// recomputation); one whose type is "reexec" must be an outcome record
// vtrust.DecodeOutcome accepts; records of other types, and of these two
// types with a version above the one this code knows (future formats),
// must pass record.CheckDecision only. So a peer's block carrying a duel
// result that does not recompute is refused on Put, and a block carrying
// a record of a newer format is not: refusing it would split nodes of
// different releases over which blocks a chain holds, where auditors
// (spec/verify.md, D2) take such a record as opaque.
func CheckDecision(data []byte) error {
	typ, version, err := record.DecisionType(data)
	if err != nil {
		return err
	}
	switch {
	case typ == duel.ResultType && version > duel.ResultVersion,
		typ == vtrust.OutcomeType && version > vtrust.OutcomeVersion:
		// A newer format: DecisionType checked what every record must be.
	case typ == duel.ResultType:
		if _, err := duel.Decode(data); err != nil {
			return fmt.Errorf("decision: %w", err)
		}
	case typ == vtrust.OutcomeType:
		if _, err := vtrust.DecodeOutcome(data); err != nil {
			return fmt.Errorf("decision: %w", err)
		}
	}
	return nil
}
