package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// A command that stops gracefully on SIGINT or SIGTERM before its job is
// done (devnet: it stops the network and audits what ran) must not then
// report that job's failure as if it had run its course: it says it was
// interrupted and exits as an interrupted command does, 128 + the signal
// (README, "Exit codes").

// signalCause is the cause of a context a signal ended.
type signalCause struct{ sig os.Signal }

func (c signalCause) Error() string { return fmt.Sprintf("interrupted by %v", c.sig) }

// stopOnSignal returns a context ended by the first SIGINT or SIGTERM,
// whose cause (interruptedBy) names it. A second signal has its default
// effect: an operator who pressed Ctrl-C twice wants the process gone,
// not a graceful stop.
func stopOnSignal(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case sig := <-ch:
			signal.Stop(ch)
			cancel(signalCause{sig})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(context.Canceled)
	}
}

// interruptedBy returns the signal that ended ctx, nil if none did.
func interruptedBy(ctx context.Context) os.Signal {
	var c signalCause
	if errors.As(context.Cause(ctx), &c) {
		return c.sig
	}
	return nil
}

// interruptedError is a command's error after a signal stopped it: main
// exits with 128 + the signal, as a shell reports an interrupted command.
type interruptedError struct {
	sig os.Signal
	msg string
}

func (e interruptedError) Error() string { return e.msg }

// exitCode is 128 + the signal's number (130 for SIGINT, 143 for
// SIGTERM), 130 where signals have no number.
func (e interruptedError) exitCode() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}
