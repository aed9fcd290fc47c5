package duel

import (
	"strings"
)

// Case is one simulated scenario: the ratio to beat, the contender's true
// win rate in each env (its probability of winning a decisive challenge)
// and the probability that a challenge is a draw.
type Case struct {
	RatioPPM uint32   `json:"ratio_ppm"`
	RatesPPM []uint32 `json:"rates_ppm"`
	DrawPPM  uint32   `json:"draw_ppm"`
}

// Boundary reports whether every env's true rate equals the ratio: the
// contender is exactly as good as it must be, so every dethrone is false.
func (c Case) Boundary() bool {
	for _, r := range c.RatesPPM {
		if r != c.RatioPPM {
			return false
		}
	}
	return true
}

// Label names the case; it also seeds the case's random stream.
func (c Case) Label() string {
	rates := make([]string, len(c.RatesPPM))
	for i, r := range c.RatesPPM {
		rates[i] = FormatPPM(r)
	}
	return "ratio " + FormatPPM(c.RatioPPM) + " rates " + strings.Join(rates, "/") + " draws " + FormatPPM(c.DrawPPM)
}

// StandardCases are the cases of spec/duel.md for duels of envs envs: at
// the floor ratio and at high, a contender at the boundary and at true
// rates 0.5, 0.55, 0.6 and 0.7 in every env (the boundary case of a ratio
// of 0.6 is its 0.6 case), plus at the floor a mixed contender, clearly
// better (0.7) in one env and at the boundary in the others.
func StandardCases(floor, high, drawPPM uint32, envs int) []Case {
	same := func(ratio, rate uint32) Case {
		rates := make([]uint32, envs)
		for i := range rates {
			rates[i] = rate
		}
		return Case{RatioPPM: ratio, RatesPPM: rates, DrawPPM: drawPPM}
	}
	var cases []Case
	for _, ratio := range []uint32{floor, high} {
		seen := map[uint32]bool{}
		for _, rate := range []uint32{ratio, 500_000, 550_000, 600_000, 700_000} {
			if !seen[rate] {
				seen[rate] = true
				cases = append(cases, same(ratio, rate))
			}
		}
	}
	mixed := same(floor, floor)
	mixed.RatesPPM[0] = 700_000
	return append(cases, mixed)
}
