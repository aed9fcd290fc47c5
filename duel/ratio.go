package duel

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
)

// Limits of FrontierParams.
const (
	// MaxHalfLife bounds the half-life so that the exact decay (big
	// integers of about 20 bits per block of half-life) stays cheap.
	MaxHalfLife = 1 << 16
	// MaxRatioPPM is the highest ratio to beat: a ratio of 1 could never
	// be beaten.
	MaxRatioPPM = PPM - 1
)

// ErrFrontier is wrapped by errors of the ratio-to-beat bookkeeping.
var ErrFrontier = errors.New("ratio to beat")

// FrontierParams fix how the ratio to beat moves (spec/duel.md, "The ratio
// to beat"). They are network constants, not part of a record.
type FrontierParams struct {
	// EpsilonPPM is the margin over 1/2 a contender must show against a
	// champion that set no higher bar: the floor is PPM/2 + EpsilonPPM.
	EpsilonPPM uint32 `json:"epsilon_ppm"`
	// HalfLifeBlocks is the number of chain blocks in which the excess of
	// the ratio over the floor halves.
	HalfLifeBlocks uint64 `json:"half_life_blocks"`
}

// DefaultFrontierParams: epsilon 0.02 and a half-life of one day of 12 s
// blocks.
func DefaultFrontierParams() FrontierParams {
	return FrontierParams{EpsilonPPM: 20_000, HalfLifeBlocks: 7200}
}

// Validate checks that the floor lies in [PPM/2, MaxRatioPPM] and the
// half-life in [1, MaxHalfLife].
func (p FrontierParams) Validate() error {
	if p.EpsilonPPM > MaxRatioPPM-PPM/2 {
		return fmt.Errorf("%w: epsilon %d ppm puts the floor above %d", ErrFrontier, p.EpsilonPPM, MaxRatioPPM)
	}
	if p.HalfLifeBlocks == 0 || p.HalfLifeBlocks > MaxHalfLife {
		return fmt.Errorf("%w: half-life of %d blocks outside [1, %d]", ErrFrontier, p.HalfLifeBlocks, MaxHalfLife)
	}
	return nil
}

// Floor returns PPM/2 + EpsilonPPM, where the ratio starts and decays to.
func (p FrontierParams) Floor() uint32 { return PPM/2 + p.EpsilonPPM }

// RatioAt returns the ratio to beat elapsed blocks after it was set to
// setPPM:
//
//	floor + floor((setPPM - floor) · 2^(-elapsed / HalfLifeBlocks))
//
// exactly (the floor of the real number, computed with integers). A setPPM
// at or below the floor gives the floor. p must be valid (Ratio checks).
func (p FrontierParams) RatioAt(setPPM uint32, elapsed uint64) uint32 {
	f := p.Floor()
	if setPPM <= f {
		return f
	}
	return f + uint32(DecayFloor(uint64(setPPM-f), elapsed, p.HalfLifeBlocks))
}

// DecayFloor returns floor(excess · 2^(-elapsed/halfLife)) exactly: the
// largest y with y^halfLife · 2^elapsed <= excess^halfLife. Ratios need
// excess below 2^20 and halfLife at most MaxHalfLife; beyond them the
// result is still exact, only slower.
//
// The float value is within 1e-8 of the real one (excess < 2^20 and a few
// roundings of relative size 2^-52), so when it lies farther than
// decayMargin from an integer its floor is the answer; otherwise the
// integer inequality decides. Either way the result does not depend on
// floating-point rounding.
func DecayFloor(excess, elapsed, halfLife uint64) uint64 {
	switch {
	case elapsed == 0:
		return excess
	case halfLife == 0 || excess == 0 || elapsed/halfLife >= uint64(bits.Len64(excess)):
		// excess < 2^len, so len half-lives take it below 1.
		return 0
	}
	f := float64(excess) * math.Exp2(-float64(elapsed)/float64(halfLife))
	if fl := math.Floor(f); excess < 1<<20 && f-fl > decayMargin && fl+1-f > decayMargin {
		return uint64(fl)
	}
	return decayExact(excess, elapsed, halfLife, uint64(f))
}

// decayMargin is how close to an integer the float estimate of a decay may
// come before the exact comparison is needed: 100 times its error bound.
const decayMargin = 1e-6

// decayExact finds the floor by the integer inequality, starting from the
// estimate guess.
func decayExact(excess, elapsed, halfLife, guess uint64) uint64 {
	bound := new(big.Int).Exp(new(big.Int).SetUint64(excess), new(big.Int).SetUint64(halfLife), nil)
	h := new(big.Int).SetUint64(halfLife)
	fits := func(y uint64) bool {
		v := new(big.Int).Exp(new(big.Int).SetUint64(y), h, nil)
		v.Lsh(v, uint(elapsed))
		return v.Cmp(bound) <= 0
	}
	y := min(guess, excess)
	for y > 0 && !fits(y) {
		y--
	}
	for y < excess && fits(y+1) {
		y++
	}
	return y
}

// GeoMeanPPM returns floor((r₁·r₂·…·rₙ)^(1/n)) exactly: the largest g with
// gⁿ <= the product. It returns 0 for no rates.
func GeoMeanPPM(rates []uint32) uint32 {
	if len(rates) == 0 {
		return 0
	}
	prod := big.NewInt(1)
	logSum := 0.0
	for _, r := range rates {
		if r == 0 {
			return 0
		}
		prod.Mul(prod, big.NewInt(int64(r)))
		logSum += math.Log(float64(r))
	}
	n := big.NewInt(int64(len(rates)))
	fits := func(g uint64) bool {
		return new(big.Int).Exp(new(big.Int).SetUint64(g), n, nil).Cmp(prod) <= 0
	}
	g := uint64(math.Exp(logSum / float64(len(rates))))
	if g > PPM {
		g = PPM
	}
	for g > 0 && !fits(g) {
		g--
	}
	for g < PPM && fits(g+1) {
		g++
	}
	return uint32(g)
}

// Frontier is the state an auditor folds over the duel results of the
// ledger, in order: the champion, the ratio it set and the chain block
// from which that ratio decays.
type Frontier struct {
	Champion Side   `json:"champion"`
	SetPPM   uint32 `json:"set_ppm"`
	SetAt    uint64 `json:"set_at"`
}

// Genesis is the frontier of a first champion crowned at block `at`: the
// ratio starts at the floor.
func (p FrontierParams) Genesis(champion Side, at uint64) Frontier {
	return Frontier{Champion: cloneSide(champion), SetPPM: p.Floor(), SetAt: at}
}

// Ratio returns the ratio to beat in force at block height.
func (p FrontierParams) Ratio(f Frontier, height uint64) (uint32, error) {
	if err := p.Validate(); err != nil {
		return 0, err
	}
	if height < f.SetAt {
		return 0, fmt.Errorf("%w: block %d precedes block %d where the ratio was set", ErrFrontier, height, f.SetAt)
	}
	return p.RatioAt(f.SetPPM, height-f.SetAt), nil
}

// NextRatio is the ratio a winning contender sets: its results' geometric
// mean, clamped to [floor, MaxRatioPPM].
func (p FrontierParams) NextRatio(geoMeanPPM uint32) uint32 {
	return min(max(geoMeanPPM, p.Floor()), MaxRatioPPM)
}

// Apply checks that r was run against the frontier's champion with the
// ratio in force at its start block, and returns the frontier after it: a
// new champion and ratio, set at r's start block, if the contender won;
// unchanged otherwise. r should have passed Verify.
func (p FrontierParams) Apply(f Frontier, r Result) (Frontier, error) {
	if !r.Champion.Equal(f.Champion) {
		return f, fmt.Errorf("%w: duel at block %d was against %s, but the champion is %s", ErrFrontier, r.Start.Number, r.Champion.Hotkey, f.Champion.Hotkey)
	}
	want, err := p.Ratio(f, r.Start.Number)
	if err != nil {
		return f, err
	}
	if r.RatioPPM != want {
		return f, fmt.Errorf("%w: duel at block %d used %d ppm, but %d ppm was in force", ErrFrontier, r.Start.Number, r.RatioPPM, want)
	}
	if r.Winner != Contender.String() {
		return f, nil
	}
	return Frontier{Champion: cloneSide(r.Contender), SetPPM: p.NextRatio(r.GeoMeanPPM), SetAt: r.Start.Number}, nil
}
