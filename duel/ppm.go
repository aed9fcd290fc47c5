package duel

import (
	"fmt"
	"strconv"
	"strings"
)

// FormatPPM writes ppm as a decimal fraction with 3 to 6 decimals:
// 520000 -> "0.520", 1 -> "0.000001".
func FormatPPM(v uint32) string {
	s := fmt.Sprintf("%d.%06d", v/PPM, v%PPM)
	for len(s) > 5 && s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	return s
}

// ParsePPM reads a decimal fraction in [0, 1] with at most 6 decimals
// ("0.02", "0.6", "1") as parts per million, exactly.
func ParsePPM(s string) (uint32, error) {
	whole, frac, dot := strings.Cut(s, ".")
	if whole == "" || (dot && frac == "") || len(frac) > 6 || strings.Trim(whole+frac, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a decimal fraction with at most 6 decimals", s)
	}
	w, err := strconv.ParseUint(whole, 10, 32)
	if err != nil || w > 1 {
		return 0, fmt.Errorf("%q is not between 0 and 1", s)
	}
	f := uint64(0)
	if frac != "" {
		f, _ = strconv.ParseUint(frac+strings.Repeat("0", 6-len(frac)), 10, 32)
	}
	v := w*PPM + f
	if v > PPM {
		return 0, fmt.Errorf("%q is not between 0 and 1", s)
	}
	return uint32(v), nil
}
