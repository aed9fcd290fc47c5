package duel

// Reigns folds one validator's duel results and adoption records, in
// ledger order, into the frontier they leave (spec/validator.md,
// "Recovery from the ledger"). The zero value with Params set starts with
// no frontier.
type Reigns struct {
	Params FrontierParams
	// Frontier is the frontier after the records folded so far; nil
	// before the first.
	Frontier *Frontier
	// adopted is set by an adoption until a result follows it.
	adopted bool
}

// ReignStart says how a result stands to the reign it was run in.
type ReignStart int

const (
	// SameReign: the result continues the reign of the results before it.
	SameReign ReignStart = iota
	// NewReign: the result's champion is not the frontier's (or there is
	// none): a reign starts at the floor at the result's start.
	NewReign
	// AdoptedReign: the result is the first of the reign an adoption
	// record started.
	AdoptedReign
)

// Result folds r, which should have passed Verify, and returns how it
// stands to its reign. An error (ErrFrontier) means the ledger's history
// is invalid; the frontier is then left as it was.
func (g *Reigns) Result(r Result) (ReignStart, error) {
	var f Frontier
	how := SameReign
	switch {
	case g.Frontier == nil || !g.Frontier.Champion.Equal(r.Champion):
		how, f = NewReign, g.Params.Genesis(r.Champion, r.Start.Number)
	case g.adopted:
		how, f = AdoptedReign, *g.Frontier
	default:
		f = *g.Frontier
	}
	after, err := g.Params.Apply(f, r)
	if err != nil {
		return how, err
	}
	g.Frontier, g.adopted = &after, false
	return how, nil
}

// Adopt folds an adoption record: the frontier becomes the one it
// adopted, and the next result of its champion continues that reign.
func (g *Reigns) Adopt(a Adopt) error {
	f, err := g.Params.Adopted(a)
	if err != nil {
		return err
	}
	g.Frontier, g.adopted = &f, true
	return nil
}
