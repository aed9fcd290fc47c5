package inference

import (
	"net/http"
	"testing"
	"time"
)

func TestBackoffBounds(t *testing.T) {
	base, ceiling := 100*time.Millisecond, time.Second
	for n, want := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond, 4: 800 * time.Millisecond, 5: time.Second, 40: time.Second} {
		seen := map[time.Duration]bool{}
		for i := 0; i < 200; i++ {
			d := backoff(n, base, ceiling)
			if d < want/2 || d > want {
				t.Fatalf("backoff(%d) = %v, want in [%v, %v]", n, d, want/2, want)
			}
			seen[d] = true
		}
		if len(seen) < 10 {
			t.Errorf("backoff(%d) has no jitter: %d distinct values", n, len(seen))
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	ceiling := 60 * time.Second
	cases := []struct {
		h    string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"7", 7 * time.Second, true},
		{" 3 ", 3 * time.Second, true},
		{"3600", ceiling, true},
		{"99999999999999999999", ceiling, true},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
		{now.Add(20 * time.Second).Format(http.TimeFormat), 20 * time.Second, true},
		{now.Add(time.Hour).Format(http.TimeFormat), ceiling, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{now.Add(30 * time.Second).Format(time.RFC850), 30 * time.Second, true},
	}
	for _, c := range cases {
		got, ok := retryAfter(c.h, now, ceiling)
		if got != c.want || ok != c.ok {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", c.h, got, ok, c.want, c.ok)
		}
	}
}

func TestRetryableStatus(t *testing.T) {
	for code, want := range map[int]bool{200: false, 400: false, 401: false, 404: false, 408: true, 429: true, 500: true, 502: true, 503: true, 599: true, 600: false} {
		if retryableStatus(code) != want {
			t.Errorf("retryableStatus(%d) != %v", code, want)
		}
	}
}

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"5", "Wed, 21 Oct 2015 07:28:00 GMT", "", "-1", "99999999999999999999999"} {
		f.Add(s)
	}
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, h string) {
		d, ok := retryAfter(h, now, time.Minute)
		if d < 0 || d > time.Minute || !ok && d != 0 {
			t.Fatalf("retryAfter(%q) = %v, %v", h, d, ok)
		}
	})
}
