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
// vtrust.DecodeOutcome accepts; records of other types (future formats)
// must pass record.CheckDecision. So a peer's block carrying a
// duel result that does not recompute is refused on Put.
func CheckDecision(data []byte) error {
	typ, _, err := record.DecisionType(data)
	if err != nil {
		return err
	}
	switch typ {
	case duel.ResultType:
		if _, err := duel.Decode(data); err != nil {
			return fmt.Errorf("decision: %w", err)
		}
	case vtrust.OutcomeType:
		if _, err := vtrust.DecodeOutcome(data); err != nil {
			return fmt.Errorf("decision: %w", err)
		}
	}
	return nil
}
