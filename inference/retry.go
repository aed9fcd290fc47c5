package inference

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryableStatus reports whether an HTTP status is worth another attempt:
// 408 and 429 (the server asks us to come back) and every 5xx (the server
// or a proxy in front of it failed). Other 4xx mean the request itself is
// refused and would be refused again.
func retryableStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500 && code <= 599
}

// backoff returns the wait before attempt n+1 after n failed attempts
// (n >= 1): d = min(ceiling, base * 2^(n-1)), then a uniform draw from
// [d/2, d]. The jitter keeps many validators that failed together from
// retrying together; it needs no reproducibility, so it uses math/rand.
func backoff(n int, base, ceiling time.Duration) time.Duration {
	d := base
	for i := 1; i < n && d < ceiling; i++ {
		d *= 2
	}
	if d > ceiling {
		d = ceiling
	}
	if d <= 0 {
		return 0
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// retryAfter parses a Retry-After header: delay-seconds (a non-negative
// integer) or an HTTP-date, relative to now. A date in the past is a wait of
// 0. The result is capped at ceiling. ok is false for an absent or unparseable
// header.
func retryAfter(h string, now time.Time, ceiling time.Duration) (d time.Duration, ok bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0, false
	}
	if allDigits(h) {
		secs, err := strconv.ParseUint(h, 10, 63)
		if err != nil || secs > uint64(ceiling/time.Second) {
			return ceiling, true // beyond any cap, or beyond int64
		}
		d = time.Duration(secs) * time.Second
	} else if t, err := http.ParseTime(h); err == nil {
		d = t.Sub(now)
	} else {
		return 0, false
	}
	if d < 0 {
		d = 0
	}
	return min(ceiling, d), true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
