package chain

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// TestRefused: the chain's refusals, wrapped as backends wrap them, are
// refusals; a failure to reach the chain is not.
func TestRefused(t *testing.T) {
	for _, err := range refusals {
		if !Refused(fmt.Errorf("reveal weights: %w", err)) {
			t.Errorf("%v is not a refusal", err)
		}
	}
	for _, err := range []error{
		errors.New("connection reset by peer"), context.DeadlineExceeded, ErrNotFound, ErrStateUnavailable, ErrUnsupported, nil,
	} {
		if Refused(fmt.Errorf("reveal weights: %w", err)) {
			t.Errorf("%v is a refusal", err)
		}
	}
}
