package inference

import (
	"context"
	"sync"
)

// limiter bounds requests in flight per miner and overall. A call takes its
// miner's slot first and the overall slot second, so calls queued behind a
// busy miner hold nothing that other miners need.
type limiter struct {
	perMiner int
	overall  chan struct{}

	mu     sync.Mutex
	miners map[string]chan struct{}
}

func newLimiter(perMiner, overall int) *limiter {
	return &limiter{perMiner: perMiner, overall: make(chan struct{}, overall), miners: map[string]chan struct{}{}}
}

func (l *limiter) minerSem(key string) chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	sem, ok := l.miners[key]
	if !ok {
		sem = make(chan struct{}, l.perMiner)
		l.miners[key] = sem
	}
	return sem
}

// acquire waits for both slots or for ctx to end, and returns the release
// function on success.
func (l *limiter) acquire(ctx context.Context, key string) (release func(), err error) {
	sem := l.minerSem(key)
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case l.overall <- struct{}{}:
	case <-ctx.Done():
		<-sem
		return nil, ctx.Err()
	}
	return func() {
		<-l.overall
		<-sem
	}, nil
}
