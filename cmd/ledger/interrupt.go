package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/affine-ledger/ledger/internal/rmtree"
	"github.com/affine-ledger/ledger/verify"
)

// A command interrupted (Ctrl-C, SIGTERM) stops at once, as a Unix tool
// does, but first removes the temporary files it made: verify's and
// import's challenge set (a scratch store that grows with the ledger, 130
// MB at 1M transcripts) and an --out file not yet renamed into place. A
// default signal left them in the temporary directory at every
// interrupted audit. The exit code is the shell's, 128 + the signal.
//
// Signals are caught only while such a file exists: commands that stop
// gracefully on a signal (node, serve, devnet) are not disturbed.

var interrupts struct {
	mu      sync.Mutex
	cleanup map[int]func()
	next    int
	signals chan os.Signal
}

// onInterrupt has fn run if the process is interrupted before done is
// called. fn must be quick and must not wait on the command's goroutines:
// it runs while they run, just before the process exits.
func onInterrupt(fn func()) (done func()) {
	in := &interrupts
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.cleanup == nil {
		in.cleanup = map[int]func(){}
		in.signals = make(chan os.Signal, 1)
		signal.Notify(in.signals, os.Interrupt, syscall.SIGTERM)
		go exitOnSignal(in.signals)
	}
	id := in.next
	in.next++
	in.cleanup[id] = fn
	var once sync.Once
	return func() {
		once.Do(func() {
			in.mu.Lock()
			defer in.mu.Unlock()
			delete(in.cleanup, id)
			if len(in.cleanup) == 0 {
				signal.Stop(in.signals)
				close(in.signals)
				in.cleanup, in.signals = nil, nil
			}
		})
	}
}

// exitOnSignal waits for a signal on ch, runs the cleanups and exits; it
// returns when ch is closed, no cleanup being left.
func exitOnSignal(ch chan os.Signal) {
	sig, ok := <-ch
	if !ok {
		return
	}
	in := &interrupts
	in.mu.Lock() // held to the exit: no cleanup is added or dropped meanwhile
	for _, fn := range in.cleanup {
		fn()
	}
	fmt.Fprintf(os.Stderr, "ledger: %v: stopped; its temporary files are removed\n", sig)
	os.Exit(interruptedError{sig: sig}.exitCode())
}

// removedOnInterrupt runs create, which makes a temporary file or
// directory and returns its path, and has an interrupt remove it until
// forget is called. An interrupt while create runs waits for it, so that
// the path is removed however early the signal comes.
func removedOnInterrupt(create func() (string, error)) (forget func(), err error) {
	var mu sync.Mutex
	var path string
	mu.Lock()
	defer mu.Unlock()
	forget = onInterrupt(func() {
		mu.Lock()
		defer mu.Unlock()
		if path != "" {
			rmtree.RemoveAll(path)
		}
	})
	if path, err = create(); err != nil {
		path = ""
		forget()
		return nil, err
	}
	return forget, nil
}

// newChallengeSet makes the scratch challenge set of verify and import,
// removed if the command is interrupted; closeSet closes and removes it,
// and says on w if its directory stays behind.
func newChallengeSet(w io.Writer) (set *verify.DiskSet, closeSet func(), err error) {
	forget, err := removedOnInterrupt(func() (string, error) {
		var err error
		if set, err = verify.NewDiskSet(""); err != nil {
			return "", err
		}
		return set.Dir(), nil
	})
	if err != nil {
		return nil, nil, err
	}
	return set, func() {
		err := set.Close()
		if _, serr := os.Lstat(set.Dir()); serr == nil {
			// The audit's answer stands; the disk it took is the
			// operator's to get back (the next audit tries too).
			fmt.Fprintf(w, "ledger: warning: the scratch directory %s is left behind: %v\n", set.Dir(), err)
		} else if err != nil {
			fmt.Fprintf(w, "ledger: warning: the scratch store: %v\n", err)
		}
		forget()
	}, nil
}
