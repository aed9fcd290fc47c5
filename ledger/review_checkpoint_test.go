package ledger_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

const checkpointSyncChildEnv = "LEDGER_REVIEW_CHECKPOINT_SYNC_CHILD"

// TestReviewCheckpointOnFailingDisk: a checkpoint asked for when the WAL's
// fsync fails is an error, as a failed append is (ErrWriteFailed), not a
// panic: the store never commits with pebble.Sync, whose failed fsync
// Pebble treats as fatal, but WithFlushedWAL does just that. On a node
// every reader's request would end the process. Run in a child process, as
// the fault tests are: a panic there is the bug.
func TestReviewCheckpointOnFailingDisk(t *testing.T) {
	if os.Getenv(checkpointSyncChildEnv) != "" {
		t.Skip("running as the child")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestReviewCheckpointSyncChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), checkpointSyncChildEnv+"="+t.TempDir(), noExitSleep())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "checkpoint refused: ") {
		t.Fatalf("checkpoint on a disk whose fsync fails: %v\n%s", err, tail(string(out)))
	}
}

// TestReviewCheckpointSyncChild is TestReviewCheckpointOnFailingDisk's
// process: it appends a block, makes the WAL's fsyncs fail and asks for a
// checkpoint.
func TestReviewCheckpointSyncChild(t *testing.T) {
	dir := os.Getenv(checkpointSyncChildEnv)
	if dir == "" {
		t.Skip("only run by TestReviewCheckpointOnFailingDisk")
	}
	inj := &walSyncFailer{}
	s, err := ledger.Open(filepath.Join(dir, "store"), ledger.WithPebbleOptions(faultPebble(faultFS(inj))), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	k := alice(t)
	appendRange(t, appender(t, s, k), k.Public(), 0, 2)
	inj.armed.Store(true)
	err = s.Checkpoint(filepath.Join(dir, "ck"))
	if err == nil {
		t.Fatal("checkpoint succeeded though the WAL's fsync failed")
	}
	if !errors.Is(err, ledger.ErrWriteFailed) {
		t.Errorf("checkpoint error %v, want ErrWriteFailed", err)
	}
	if s.Err() == nil {
		t.Error("Store.Err is nil after the WAL's fsync failed")
	}
	os.Stdout.WriteString("checkpoint refused: " + err.Error() + "\n")
}

// walSyncFailer fails every fsync of a WAL once armed.
type walSyncFailer struct{ armed atomic.Bool }

func (f *walSyncFailer) String() string { return "fail WAL syncs" }

func (f *walSyncFailer) MaybeError(op errorfs.Op) error {
	switch op.Kind {
	case errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo:
		if f.armed.Load() && strings.HasSuffix(op.Path, ".log") {
			return errorfs.ErrInjected
		}
	}
	return nil
}
