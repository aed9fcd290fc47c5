package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/chain/local"
	"github.com/affine-ledger/ledger/explorer/explorertest"
	"github.com/affine-ledger/ledger/internal/syncbuf"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// TestServe runs `ledger serve` on a node-style data directory (the store
// in store/), reads the API over loopback, and stops it with its context.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	s, err := ledger.Open(filepath.Join(dir, "store"), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	f, err := explorertest.Fill(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	var out syncbuf.Buffer
	root := newRootCmd()
	root.SetArgs([]string{"serve", "--data", dir, "--listen", "127.0.0.1:0"})
	root.SetOut(&out)
	root.SetErr(&out)
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(runCtx) }()
	addr := waitFor(t, ctx, &out, regexp.MustCompile(`explorer at http://(\S+)/`))
	// What serve reads cannot change while it serves: no writer opens the
	// store beside it (so serve has no --refresh).
	if w, err := ledger.Open(filepath.Join(dir, "store"), ledger.WithNetwork(recordtest.Network)); !errors.Is(err, ledger.ErrLocked) {
		if err == nil {
			w.Close()
		}
		t.Fatalf("a writer opened the store serve reads: %v", err)
	}

	for path, want := range map[string]string{
		"/healthz":                              `"validators":2`,
		"/api/v1/status":                        `"duels":2`,
		"/api/v1/transcripts/" + f.XSS.String(): `\u003cscript\u003e`,
		"/":                                     `<script type="module" src="/js/app.js">`,
	} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), want) {
			t.Errorf("GET %s: %d, body lacks %q", path, resp.StatusCode, want)
		}
	}
	resp, err := http.Get("http://" + addr + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("pprof without --pprof: %d", resp.StatusCode)
	}
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v\n%s", err, out.String())
		}
	case <-ctx.Done():
		t.Fatal("serve did not stop")
	}
	// The store is closed again: it opens.
	s, err = ledger.Open(filepath.Join(dir, "store"), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

func TestServeBadData(t *testing.T) {
	empty := t.TempDir()
	for _, args := range [][]string{
		{"serve"},
		{"serve", "--data", filepath.Join(empty, "missing")},
		{"serve", "--data", empty},
	} {
		var stdout, stderr strings.Builder
		if code := run(args, &stdout, &stderr); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, exitUsage, stderr.String())
		}
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Errorf("serve created files in a directory that holds no store: %v", entries)
	}
}

// TestServeStoreInUse: serve does not read a running node's store through
// a checkpoint (its view would stop at the checkpoint while the node goes
// on); the refusal is bad usage naming the node's --status explorer, which
// serves the same pages over the live store.
func TestServeStoreInUse(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	s, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	code, _, errs := ledgerRun(t, "serve", "--data", dir, "--listen", "127.0.0.1:0")
	if code != exitUsage || !strings.Contains(errs, "store is in use") || !strings.Contains(errs, "--status") {
		t.Errorf("serve a store open for writing: exit %d, %q; want exit 2 pointing at the node's --status", code, errs)
	}
}

// TestServeTempoAgainstChain: with --chain, the explorer's vTrust view
// takes its epochs from the chain's tempo; a --tempo that contradicts it
// was used instead, showing epochs the chain does not have. It is bad
// usage naming both, as node's --netuid against --chain is; one that
// agrees is accepted.
func TestServeTempoAgainstChain(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	serve := []string{"serve", "--data", dir, "--listen", "127.0.0.1:0", "--chain", "local"}
	code, out := runStopped(t, append(serve, "--tempo", "10")...)
	if code != exitUsage || !strings.Contains(out, "--tempo 10") {
		t.Errorf("--tempo 10 against the local chain's: exit %d, %q; want exit 2 naming --tempo", code, out)
	}
	if code, out := runStopped(t, append(serve, "--tempo", fmt.Sprint(local.DefaultTempo))...); code != exitOK {
		t.Errorf("--tempo %d, the chain's: exit %d, %q", local.DefaultTempo, code, out)
	}
}

// TestServeRefreshRemoved: --refresh bounded how often the explorer's
// index looks for new blocks, but the store serve reads cannot get any
// while it serves (TestServe); the flag did nothing. Given, it is bad
// usage saying why and where a live explorer is, not silently accepted.
func TestServeRefreshRemoved(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	code, out := runStopped(t, "serve", "--data", dir, "--listen", "127.0.0.1:0", "--refresh", "1s")
	if code != exitUsage || !strings.Contains(out, "--refresh") || !strings.Contains(out, "node --status") {
		t.Errorf("serve --refresh 1s: exit %d, %q; want exit 2 saying --refresh is gone and naming node --status", code, out)
	}
	if strings.Contains(out, "explorer at") {
		t.Errorf("serve --refresh started serving: %q", out)
	}
	_, help := runStopped(t, "serve", "--help")
	if strings.Contains(help, "--refresh") {
		t.Errorf("serve --help still offers --refresh:\n%s", help)
	}
}
