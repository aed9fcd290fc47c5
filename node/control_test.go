package node_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/node/nodetest"
)

// TestCheckpointsForReaders: a running node hands out checkpoints of its
// store on its control socket, at most four at once; each opens
// read-only beside the node and holds the chain as it was asked for; and
// each is removed once its reader hangs up.
func TestCheckpointsForReaders(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := nodetest.New(t, 1, nodetest.Options{})
	c.StartAll()
	dataDir := c.Configs[0].DataDir
	v := c.Keys[0].Public()
	rs := appendBlocks(t, ctx, c, 0, 0, 3, 2, 0)

	if _, err := ledger.OpenReadOnly(node.StoreDir(dataDir)); !errors.Is(err, ledger.ErrLocked) {
		t.Fatalf("the running node's store opened read-only: %v", err)
	}
	ck, err := node.RequestCheckpoint(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	later := appendBlocks(t, ctx, c, 0, 6, 1, 2, 0)
	r, err := ledger.OpenReadOnly(ck.Dir)
	if err != nil {
		t.Fatalf("open the checkpoint: %v", err)
	}
	if h, err := r.Head(v); err != nil || h.Block.CID != rs[2].Block.CID {
		t.Fatalf("checkpoint head %v (%v), want %s", h.Block.CID, err, rs[2].Block.CID)
	}
	if _, err := r.Block(later[0].Block.CID); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("block appended after the checkpoint: %v", err)
	}

	var more []*node.Checkpoint
	for range 3 {
		ck, err := node.RequestCheckpoint(dataDir)
		if err != nil {
			t.Fatalf("checkpoint %d of 4: %v", len(more)+2, err)
		}
		more = append(more, ck)
	}
	if _, err := node.RequestCheckpoint(dataDir); err == nil || !strings.Contains(err.Error(), "4 checkpoints are open") {
		t.Fatalf("a fifth checkpoint at once: %v", err)
	}
	for _, ck := range more {
		ck.Close()
		waitGone(t, ctx, ck.Dir)
	}
	if got := controlRequest(t, dataDir, "rm -rf /\n"); !strings.Contains(got.Error, "unknown request") {
		t.Fatalf("unknown request answered %+v", got)
	}

	r.Close()
	ck.Close()
	waitGone(t, ctx, ck.Dir)
}

// TestCheckpointOutlivesTheNode: a reader keeps its checkpoint when the
// node stops under it, and the node's next start removes it once the
// reader is done.
func TestCheckpointOutlivesTheNode(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := nodetest.New(t, 1, nodetest.Options{})
	c.StartAll()
	rs := appendBlocks(t, ctx, c, 0, 0, 2, 2, 0)
	ck, err := node.RequestCheckpoint(c.Configs[0].DataDir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ledger.OpenReadOnly(ck.Dir)
	if err != nil {
		t.Fatal(err)
	}
	c.Stop(0)
	for _, c := range rs[1].Transcripts {
		if _, err := r.Object(c); err != nil {
			t.Fatalf("reading the checkpoint after the node stopped: %v", err)
		}
	}
	// Started while the reader still holds it: the sweep leaves it.
	c.Start(0)
	if _, err := os.Stat(ck.Dir); err != nil {
		t.Fatalf("a checkpoint still read was removed: %v", err)
	}
	c.Stop(0)
	r.Close()
	ck.Close()
	c.Start(0)
	if _, err := os.Stat(ck.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the checkpoint a stopped node left is still there after a start: %v", err)
	}
}

func controlRequest(t *testing.T, dataDir, line string) (reply struct{ Dir, Error string }) {
	t.Helper()
	conn, err := net.Dial("unix", node.ControlSocket(dataDir))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write([]byte(line)); err != nil {
		t.Fatal(err)
	}
	b, err := bufio.NewReader(conn).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &reply); err != nil {
		t.Fatalf("reply %q: %v", b, err)
	}
	return reply
}

func waitGone(t *testing.T, ctx context.Context, dir string) {
	t.Helper()
	for {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("checkpoint %s not removed after its reader hung up", dir)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// TestCheckpointDirIsAbsolute: a node started with a relative data
// directory names its checkpoints absolutely: the reader's working
// directory is its own. (The test cannot move its own working directory
// while the node runs: the node's paths are relative to it.)
func TestCheckpointDirIsAbsolute(t *testing.T) {
	c := nodetest.New(t, 1, nodetest.Options{})
	abs := c.Configs[0].DataDir
	t.Chdir(filepath.Dir(abs))
	c.Configs[0].DataDir = filepath.Base(abs)
	c.StartAll()
	ck, err := node.RequestCheckpoint(abs)
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Close()
	if !filepath.IsAbs(ck.Dir) || !strings.HasPrefix(ck.Dir, node.CheckpointsDir(abs)) {
		t.Fatalf("checkpoint %q, want a directory under %s", ck.Dir, node.CheckpointsDir(abs))
	}
	s, err := ledger.OpenReadOnly(ck.Dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}
