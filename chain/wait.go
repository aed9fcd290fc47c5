package chain

import (
	"context"
	"fmt"
	"time"
)

// WaitBlock polls c every poll until its head reaches block n, and returns
// that head. Validators use it to time reveals (the reveal epoch) and
// epochs; it gives up when ctx ends.
func WaitBlock(ctx context.Context, c Chain, n uint64, poll time.Duration) (Block, error) {
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		b, err := c.Head(ctx)
		if err != nil {
			return b, err
		}
		if b.Number >= n {
			return b, nil
		}
		select {
		case <-ctx.Done():
			return b, fmt.Errorf("waiting for block %d (head %d): %w", n, b.Number, ctx.Err())
		case <-t.C:
		}
	}
}
