// Package decisions holds the network's rule for the decision records a
// block links (spec/validator.md, "Decision records"): the one check that
// stores apply to every block they take, appended or a peer's, and that
// the audit applies to every block it reads, so that no chain a node
// refuses passes `ledger verify` and no chain the audit passes is refused.
package decisions

import (
	"fmt"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/vtrust"
)

// Check checks one decision record. A record whose type is "duel" must be
// a duel result that duel.Decode accepts (canonical, and every derived
// field equal to its recomputation); one whose type is "reexec" an outcome
// record that vtrust.DecodeOutcome accepts; a record of one of these types
// without a version counts as version 1's. Records of other types, and of
// these types with a version above the one this code knows (a later
// release's formats), must pass record.CheckDecision only: refusing them
// would split nodes of different releases over which blocks a chain holds.
func Check(data []byte) error {
	_, _, err := CheckType(data)
	return err
}

// CheckType is Check that also returns the record's type and version
// (record.DecisionType), for a reader that goes on by them.
func CheckType(data []byte) (typ string, version uint64, err error) {
	typ, version, err = record.DecisionType(data)
	if err != nil {
		return "", 0, err
	}
	switch {
	case typ == duel.ResultType && version > duel.ResultVersion,
		typ == vtrust.OutcomeType && version > vtrust.OutcomeVersion:
		// A newer format: DecisionType checked what every record must be.
	case typ == duel.ResultType:
		if _, err := duel.Decode(data); err != nil {
			return "", 0, fmt.Errorf("decision: %w", err)
		}
	case typ == vtrust.OutcomeType:
		if _, err := vtrust.DecodeOutcome(data); err != nil {
			return "", 0, fmt.Errorf("decision: %w", err)
		}
	}
	return typ, version, nil
}
