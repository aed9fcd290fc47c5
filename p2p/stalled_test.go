package p2p

import (
	"context"
	"testing"
	"time"
)

// TestStalledByTheClockBeforeTheContextsTimer: an exchange's stream has
// the deadline of its context on a timer of its own, which may fire
// first. Under load it did: the read failed with "i/o deadline reached"
// while the context's Err was still nil, the stall was taken for an
// ordinary failure, the staller was not passed over, and each chain it
// claimed cost a backfill RequestTimeout again
// (TestStallingClaimantDoesNotHoldEveryBackfill timed out with 9 requests
// stalled instead of 5).
func TestStalledByTheClockBeforeTheContextsTimer(t *testing.T) {
	now := time.Now()
	parent := context.Background()
	ctx, cancel := context.WithDeadline(parent, now.Add(time.Hour))
	defer cancel()
	if stalledAt(parent, ctx, now) {
		t.Error("an exchange with time left is stalled")
	}
	// The deadline passed by the clock; the context's timer has not run.
	if ctx.Err() != nil {
		t.Fatal("the context ended early")
	}
	if !stalledAt(parent, ctx, now.Add(time.Hour)) {
		t.Error("an exchange past its deadline, its context's timer not yet run, is not stalled")
	}

	expired, cancelExpired := context.WithDeadline(parent, now.Add(-time.Second))
	defer cancelExpired()
	if !stalledAt(parent, expired, now) {
		t.Error("an exchange whose context expired is not stalled")
	}

	cancelled, cancelParent := context.WithCancel(parent)
	cancelParent()
	under, cancelUnder := context.WithDeadline(cancelled, now.Add(-time.Second))
	defer cancelUnder()
	if stalledAt(cancelled, under, now) {
		t.Error("an exchange whose caller gave up is stalled")
	}

	// The caller's own deadline came first: its time ran out, not the
	// exchange's, even before the caller's timer ran.
	short, cancelShort := context.WithDeadline(parent, now.Add(time.Minute))
	defer cancelShort()
	inner, cancelInner := context.WithTimeout(short, RequestTimeout)
	defer cancelInner()
	if stalledAt(short, inner, now.Add(time.Minute)) {
		t.Error("an exchange cut short by its caller's deadline is stalled")
	}
}
