package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/node"
)

// TestFailedNodeStartLeavesNothing: a node that could not start (a listen
// address or the status port in use) exited 2 but left a store, an
// identity and a status file in a data directory that did not exist
// before, which the next start and every other command then took for a
// node's data; and it warned of its missing validator set before the error
// that stopped it. A failed start of a new data directory leaves nothing;
// one of a node's existing data directory leaves it as it was, its last
// status included; and the start's warnings come only with a node that
// runs.
func TestFailedNodeStartLeavesNothing(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { taken.Close() })
	port := taken.Addr().(*net.TCPAddr).Port
	inUse := map[string][]string{
		"listen": {"--listen", fmt.Sprintf("/ip4/127.0.0.1/tcp/%d", port)},
		"status": {"--listen", "/ip4/127.0.0.1/tcp/0", "--status", taken.Addr().String()},
	}
	for name, args := range inUse {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			fresh := filepath.Join(root, "new", "node")
			code, out := runStopped(t, append([]string{"node", "--data", fresh}, args...)...)
			if code != exitUsage || !strings.Contains(out, "address already in use") {
				t.Fatalf("exit %d, %q; want exit 2, address already in use", code, out)
			}
			if strings.Contains(out, "no validator set") {
				t.Errorf("a node that did not start warned of its validator set:\n%s", out)
			}
			if entries, _ := os.ReadDir(root); len(entries) != 0 {
				t.Errorf("a failed start of %s left %v in %s", fresh, names(entries), root)
			}

			// A data directory a node ran on keeps what it holds.
			dir := filepath.Join(root, "ran")
			if code, out := runStopped(t, "node", "--data", dir, "--listen", "/ip4/127.0.0.1/tcp/0", "--log-level", "error"); code != exitOK {
				t.Fatalf("first start: exit %d: %s", code, out)
			}
			status, err := os.ReadFile(node.StatusFile(dir))
			if err != nil {
				t.Fatal(err)
			}
			identity, err := os.ReadFile(node.IdentityFile(dir))
			if err != nil {
				t.Fatal(err)
			}
			if code, out := runStopped(t, append([]string{"node", "--data", dir}, args...)...); code != exitUsage {
				t.Fatalf("start on a port in use: exit %d: %s", code, out)
			}
			if got, _ := os.ReadFile(node.StatusFile(dir)); !bytes.Equal(got, status) {
				t.Errorf("a failed start rewrote the status of the node that ran:\n%s\nwas\n%s", got, status)
			}
			if got, _ := os.ReadFile(node.IdentityFile(dir)); !bytes.Equal(got, identity) {
				t.Error("a failed start changed the node's identity")
			}
			if _, err := os.Stat(node.StoreDir(dir)); err != nil {
				t.Errorf("a failed start removed the store of the node that ran: %v", err)
			}
		})
	}
}

func names(entries []os.DirEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}
