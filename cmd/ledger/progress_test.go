package main

import (
	"bytes"
	"io"
	"runtime"
	"testing"
)

// TestProgressBarStartsNoGoroutine: the progress bar library's spinner
// goroutine reads the bar without its lock (a race with Add); no bar the
// commands make, drawn or not, of a known or unknown total, may start it.
func TestProgressBarStartsNoGoroutine(t *testing.T) {
	for _, visible := range []bool{false, true} {
		for _, total := range []int64{-1, 1000} {
			bar := progressBar(io.Discard, total, "testing", visible)
			if err := bar.Add(10); err != nil {
				t.Fatal(err)
			}
			defer bar.Finish()
		}
	}
	buf := make([]byte, 1<<20)
	stacks := buf[:runtime.Stack(buf, true)]
	if bytes.Contains(stacks, []byte("progressbar/v3.NewOptions64.func")) {
		t.Fatalf("a progress bar runs a goroutine of its own:\n%s", stacks)
	}
}
