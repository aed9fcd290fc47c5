package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/internal/syncbuf"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/node"
)

// TestPeersSaysTheNodeStopped: `ledger peers --data` read the status file
// a stopped node left and showed it as a running node's, exit 0 with
// "peers: 0". It says that no node runs and since when the status dates,
// and exits 1; a node that runs is shown as before.
func TestPeersSaysTheNodeStopped(t *testing.T) {
	t.Parallel()
	ctx, nodeCtx, stop := nodeContexts(t)
	data := filepath.Join(t.TempDir(), "node")
	var out syncbuf.Buffer
	done := startNode(nodeCtx, &out, "--data", data, "--listen", "/ip4/127.0.0.1/tcp/0")
	waitFor(t, ctx, &out, regexp.MustCompile(`(listening on)`))
	waitStatusFile(t, ctx, data)
	text, _, err := runLedger(t, "", "peers", "--data", data)
	if err != nil || strings.Contains(text, "not running") {
		t.Fatalf("peers on a running node: %v\n%s", err, text)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	st, err := node.ReadStatusFile(data)
	if err != nil {
		t.Fatal(err)
	}
	dates := st.UpdatedAt.UTC().Format(time.RFC3339)

	text, _, err = runLedger(t, "", "peers", "--data", data)
	if !failedCheck(err) || !strings.HasPrefix(text, "no node is running on "+data+": the status shown is its last, of "+dates) {
		t.Errorf("peers on a stopped node: %v; want exit 1, and first a line saying no node runs there, with the status's time %s:\n%s", err, dates, text)
	}
	if strings.Contains(text, "did not stop cleanly") {
		t.Errorf("a node that stopped cleanly is said not to have:\n%s", text)
	}
	js, _, err := runLedger(t, "", "peers", "--data", data, "--json")
	if !failedCheck(err) || !strings.Contains(err.Error(), "no node is running on "+data) || !strings.Contains(err.Error(), dates) {
		t.Errorf("peers --json on a stopped node: %v; want exit 1 saying no node runs there, since %s", err, dates)
	}
	if json.Unmarshal([]byte(js), &st) != nil {
		t.Errorf("peers --json on a stopped node printed no status: %s", js)
	}

	// A node killed leaves its control socket behind: nothing answers it.
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: node.ControlSocket(data), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	text, _, err = runLedger(t, "", "peers", "--data", data)
	if !failedCheck(err) || !strings.Contains(text, "did not stop cleanly") {
		t.Errorf("peers beside a stale control socket: %v; want exit 1 saying the node did not stop cleanly:\n%s", err, text)
	}

	// A node that could not make its control socket still holds its
	// store: it runs.
	s, err := ledger.Open(node.StoreDir(data))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if text, _, err := runLedger(t, "", "peers", "--data", data); err != nil || strings.Contains(text, "no node is running") {
		t.Errorf("peers on a store open for writing: %v; want it taken for a running node:\n%s", err, text)
	}
}

func failedCheck(err error) bool {
	var cf checkFailed
	return errors.As(err, &cf)
}

// waitStatusFile waits until the node on dataDir wrote its status file.
func waitStatusFile(t *testing.T, ctx context.Context, dataDir string) {
	t.Helper()
	for {
		if _, err := node.ReadStatusFile(dataDir); err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no status file in %s", dataDir)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
