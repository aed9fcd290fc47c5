package yuma

import (
	"fmt"
	"math/bits"
)

// loadRows turns stored sparse rows into a matrix, converting each value
// with conv. Entries on uids at or beyond n are dropped, as subtensor's
// epoch drops them; a uid twice in one row is an error, since neither
// set_weights nor the epoch can store one.
func loadRows(rows [][]Entry, n int, what string, conv func(uint16) Fixed) (matrix, error) {
	m := newMatrix(n)
	seen := make([]int, n) // seen[j] == i+1: row i holds uid j
	for i, r := range rows {
		for _, e := range r {
			j := int(e.UID)
			if j >= n {
				continue
			}
			if seen[j] == i+1 {
				return nil, fmt.Errorf("%w: %s row of uid %d holds uid %d twice", ErrInput, what, i, j)
			}
			seen[j] = i + 1
			m.row(i, n)[j] = conv(e.Value)
		}
	}
	return m, nil
}

// emaAlpha is 1 - BondsMovingAverage/1e6, computed as subtensor does: the
// ratio in I64F64, truncated to I32F32, subtracted from one.
func emaAlpha(movingAverage uint64) Fixed {
	hi, lo := bits.Mul64(movingAverage, 1<<32)
	q, _ := bits.Div64(hi, lo, 1_000_000) // movingAverage <= 1e6, so no overflow
	return satSub(One, Fixed(q))
}

// dropRecent removes bonds held on uids registered at or after lastTempo.
func dropRecent(b matrix, lastTempo uint64, reg []uint64) {
	for j, r := range reg {
		if lastTempo <= r {
			for _, row := range b {
				if row != nil {
					row[j] = 0
				}
			}
		}
	}
}

// bondsResult is what either bonds variant hands back: the bonds to store
// (and which entries subtensor's sparse rows hold) and the dividends.
type bondsResult struct {
	stored    matrix
	present   [][]bool
	dividends []Fixed
}

// classicBonds is the original Yuma: bonds are an EMA of the
// column-normalized stake-weighted weights, dividends are bonds times
// incentive, and bonds are stored column max-upscaled.
func classicBonds(stored [][]Entry, wfb matrix, activeStake, incentive []Fixed, in *Input, n int) (bondsResult, error) {
	b, err := loadRows(stored, n, "Bonds", FromUint16)
	if err != nil {
		return bondsResult{}, err
	}
	dropRecent(b, in.LastTempo, in.BlockAtRegistration)
	normalizeCols(b, n)
	delta := rowHadamard(wfb, activeStake)
	normalizeCols(delta, n)
	e, present := ema(delta, b, emaAlpha(in.Params.BondsMovingAverage), n)
	normalizeCols(e, n)
	div := matmulTranspose(e, incentive)
	normalize(div)
	maxUpscaleCols(e, n)
	return bondsResult{e, present, div}, nil
}

// yuma3Bonds is subtensor's Yuma3 with liquid alpha off: bonds are fixed
// proportions of 65535, the EMA runs on the weights themselves, and each
// validator's dividend is its bond-weighted incentive times its stake.
func yuma3Bonds(stored [][]Entry, wfb matrix, activeStake, incentive []Fixed, in *Input, n int) (bondsResult, error) {
	b, err := loadRows(stored, n, "Bonds", ratioU16)
	if err != nil {
		return bondsResult{}, err
	}
	dropRecent(b, in.LastTempo, in.BlockAtRegistration)
	e, present := ema(wfb, b, emaAlpha(in.Params.BondsMovingAverage), n)
	norm := e.clone()
	normalizeCols(norm, n)
	div := make([]Fixed, n)
	for i, r := range norm {
		var total Fixed
		for j, v := range r {
			total += satMul(v, incentive[j])
		}
		div[i] = checkedMul(total, activeStake[i])
	}
	normalize(div)
	return bondsResult{e, present, div}, nil
}

// storeRow is the sparse row subtensor writes for uid i: the entries its
// EMA held, as fixed proportions of 65535 (which may round to zero).
func storeRow(r []Fixed, present []bool) []Entry {
	out := []Entry{}
	for j, p := range present {
		if p {
			out = append(out, Entry{UID: uint16(j), Value: r[j].Uint16()})
		}
	}
	return out
}
