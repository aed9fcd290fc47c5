// Package ratelog logs a failure that repeats, such as a chain that stays
// unreachable, without flooding the log: the first failure at once, then
// at most one line an interval, counting the failures it held back, and
// one line when the failing stops.
package ratelog

import (
	"log/slog"
	"sync"
	"time"
)

// DefaultEvery is the interval of a Failures whose Every is zero.
const DefaultEvery = time.Minute

// Failures is one kind of failure of one loop. The zero value is ready;
// its methods are safe for concurrent use. Times are given by the caller,
// as the loop already read them, which also lets tests step them.
type Failures struct {
	// Every is the least time between two lines (default DefaultEvery).
	Every time.Duration

	mu      sync.Mutex
	failing bool
	since   time.Time // the first failure of the episode
	logged  time.Time // the last line
	count   int       // failures of the episode
	held    int       // failures since the last line
}

// Fail notes a failure at now. It logs msg at WARN, with args, when it is
// the first of an episode or the last line is Every old, adding
// "failures" (of the episode so far) and "since" (its first failure) to
// a repeat; and reports whether it logged.
func (f *Failures) Fail(log *slog.Logger, now time.Time, msg string, args ...any) bool {
	f.mu.Lock()
	every := f.Every
	if every <= 0 {
		every = DefaultEvery
	}
	if !f.failing {
		f.failing, f.since, f.count, f.held = true, now, 0, 0
	}
	f.count++
	f.held++
	first := f.count == 1
	if !first && now.Sub(f.logged) < every {
		f.mu.Unlock()
		return false
	}
	f.logged, f.held = now, 0
	count, since := f.count, f.since
	f.mu.Unlock()
	if !first {
		args = append(args, "failures", count, "since", since.UTC().Format(time.RFC3339))
	}
	log.Warn(msg, args...)
	return true
}

// OK notes a success at now: after an episode of failures it logs msg at
// INFO with how many there were and for how long, and reports whether it
// logged.
func (f *Failures) OK(log *slog.Logger, now time.Time, msg string, args ...any) bool {
	f.mu.Lock()
	if !f.failing {
		f.mu.Unlock()
		return false
	}
	f.failing = false
	count, since := f.count, f.since
	f.mu.Unlock()
	log.Info(msg, append(args, "failures", count, "for", now.Sub(since).Round(time.Millisecond).String())...)
	return true
}
