package explorer

import "github.com/affine-ledger/ledger/duel"

// CurvePoint is the state of one env of a duel after its first Challenge
// challenges: the contender's wins and losses so far, its win rate over the
// decisive ones and the Wilson interval at the rule's z (duel.Bounds, in
// ppm), and whether a look of the rule fell on this challenge.
type CurvePoint struct {
	Challenge uint32 `json:"challenge"`
	Outcome   string `json:"outcome"`
	Wins      uint32 `json:"wins"`
	Losses    uint32 `json:"losses"`
	RatePPM   uint32 `json:"rate_ppm"`
	LowerPPM  uint32 `json:"lower_ppm"`
	UpperPPM  uint32 `json:"upper_ppm"`
	Look      bool   `json:"look"`
}

// Curve replays an env's outcome letters (W, L, D) and returns one point
// per challenge. The interval is the one the sequential rule computes
// (duel.Bounds at rule.ZMilli), shown at every challenge and not only at
// the looks where the rule acts; a point is a Look when the decisive count
// reached one of rule.Looks with this challenge. Letters other than W, L
// and D count as draws (a verified record has none).
func Curve(rule duel.Rule, outcomes string) []CurvePoint {
	out := make([]CurvePoint, 0, len(outcomes))
	var w, l uint32
	look := 0
	for i := 0; i < len(outcomes); i++ {
		o := duel.Outcome(outcomes[i])
		decisive := false
		switch o {
		case duel.Win:
			w++
			decisive = true
		case duel.Loss:
			l++
			decisive = true
		default:
			o = duel.Draw
		}
		p := CurvePoint{Challenge: uint32(i + 1), Outcome: string(rune(o)), Wins: w, Losses: l, RatePPM: duel.RatePPM(w, l)}
		p.LowerPPM, p.UpperPPM = duel.Bounds(w, w+l, rule.ZMilli)
		if decisive && look < len(rule.Looks) && w+l == rule.Looks[look] {
			p.Look = true
			look++
		}
		out = append(out, p)
	}
	return out
}
