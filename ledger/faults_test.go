package ledger_test

// Fault tests: I/O errors injected with Pebble's errorfs at each write, sync
// and create an append sequence performs, and power-loss states taken with
// vfs.NewCrashableMem at random moments of a running appender.
//
// What Pebble v2 (v2.1.7) does when the file system fails under it, as
// these tests see it:
//
//   - A WAL write or fsync fails (record.LogWriter.flushPending): the error
//     is sticky. The batch waiting for that sync and every later one get it
//     from Batch.SyncWait; the store then refuses all writes
//     (ErrWriteFailed, Store.Err) and the appends fail. Closing fails too.
//   - A synchronous commit (DB.Set or DB.Apply with pebble.Sync) whose
//     fsync fails is fatal: Logger.Fatalf("pebble: fatal commit error"),
//     and the store's logger panics. The store never commits that way: it
//     applies with ApplyNoSyncWait and then waits, which returns the error.
//   - Once a WAL error reaches the LogWriter itself (when the next 32 KiB
//     WAL block fills), the next commit panics in DB.commitWrite with the
//     commit pipeline's mutex held.
//   - Rotating the WAL (a full memtable, DB.Flush in NewAppender) fails to
//     close the old log or create the new one: DB.rotateWAL panics, and the
//     deferred unlock of DB.mu turns that into the unrecoverable runtime
//     error "sync: unlock of unlocked mutex". A compaction running when the
//     WAL's fsync fails can die the same way, in DB.compact.
//   - Writing or syncing the MANIFEST (or its marker) fails:
//     Logger.Fatalf("MANIFEST flush/sync/set current failed").
//   - Writing a flushed or compacted sstable, or syncing the directory
//     after creating one, fails: EventListener.BackgroundError (the store's
//     logger logs "background error") and Pebble retries; the WAL still
//     holds the data. A failed WAL preallocation is ignored and a failed
//     removal of an obsolete file leaves garbage: both harmless.
//   - Creating the store fails: Open returns the error, or panics like
//     the above when the failure is a MANIFEST write or a directory sync.
//
// So a disk that fails under the WAL rotation or the MANIFEST kills the
// process, loudly and with nothing acknowledged that was not synced. The
// store does not recover those panics: Pebble's mutexes stay locked, and
// one of them is a fatal runtime error that cannot be recovered anyway. A
// node is restarted by its supervisor and Open replays the WAL. That is
// why TestFaultInjection runs each injection in a child process, as
// TestCrash does, and then reopens the directory with a file system that
// works.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify"
)

const (
	faultDirEnv = "LEDGER_FAULT_CHILD_DIR"
	faultAtEnv  = "LEDGER_FAULT_AT"
)

// faultPebble is the Pebble configuration of the fault tests: memtables
// small enough that the append sequence rotates the WAL, flushes, edits the
// MANIFEST and compacts L0 several times.
func faultPebble(fs vfs.FS) *pebble.Options {
	return &pebble.Options{FS: fs, MemTableSize: 64 << 10, L0CompactionThreshold: 2}
}

// faultWorkload is the append sequence TestFaultInjection breaks: open a
// store, start an appender (which flushes), append requests one at a time
// and, every fourth round, three at once (one group-committed block), then
// close. It reports "ack <cid>" once an append returned, "err <step>:
// <error>" for every failure and "bad <what>" for a failure that is not
// what the store promises (an append must fail with ErrWriteFailed, and
// Store.Err must then report it); after three failed appends it stops.
func faultWorkload(fs vfs.FS, dir string, out *lines) {
	k, err := keys.FromURI("//Alice")
	if err != nil {
		panic(err)
	}
	s, err := ledger.Open(dir, ledger.WithPebbleOptions(faultPebble(fs)), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		out.printf("err open: %v", err)
		return
	}
	defer func() {
		if err := s.Close(); err != nil {
			out.printf("err close: %v", err)
		}
	}()
	a, err := s.NewAppender(k)
	if err != nil {
		out.printf("err appender: %v", err)
		return
	}
	failed := 0
	for i := uint64(0); i < 24 && failed < 3; i++ {
		n := uint64(1)
		if i%4 == 3 {
			n = 3
		}
		var futures []ledger.Future
		for j := range n {
			first := (i*4 + j) * 4
			var ts []record.Transcript
			for m := range 1 + (i+j)%3 {
				ts = append(ts, recordtest.Transcript(k.Public(), first+m, 1500))
			}
			futures = append(futures, a.Add(context.Background(), recordtest.Anchor(1), ts, nil))
		}
		for _, f := range futures {
			r, err := f()
			if err != nil {
				out.printf("err append %d: %v", i, err)
				if serr := s.Err(); !errors.Is(err, ledger.ErrWriteFailed) || serr == nil {
					out.printf("bad append %d failed without a write failure: Store.Err is %v", i, serr)
				}
				failed++
				continue
			}
			for _, c := range r.Transcripts {
				out.printf("ack %s", c)
			}
		}
	}
}

// lines writes whole lines to w from any goroutine; nil w discards.
type lines struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lines) printf(format string, args ...any) {
	if l.w == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, format+"\n", args...)
}

// faultInjector counts the write, sync and create operations and fails the
// at-th (none when at is 0), reporting it first.
type faultInjector struct {
	at  int64
	n   atomic.Int64
	out *lines
}

func (f *faultInjector) String() string { return fmt.Sprintf("fail operation %d", f.at) }

func (f *faultInjector) MaybeError(op errorfs.Op) error {
	name, ok := faultOps[op.Kind]
	if !ok {
		return nil
	}
	if f.n.Add(1) != f.at {
		return nil
	}
	f.out.printf("injected %d %s %s", f.at, name, filepath.Base(op.Path))
	return errorfs.ErrInjected
}

// faultOps are the operations that change the disk, by name.
var faultOps = map[errorfs.OpKind]string{
	errorfs.OpCreate:          "create",
	errorfs.OpLink:            "link",
	errorfs.OpRemove:          "remove",
	errorfs.OpRename:          "rename",
	errorfs.OpReuseForWrite:   "reuse",
	errorfs.OpMkdirAll:        "mkdir",
	errorfs.OpFileWrite:       "write",
	errorfs.OpFileWriteAt:     "writeat",
	errorfs.OpFileSync:        "sync",
	errorfs.OpFileSyncData:    "syncdata",
	errorfs.OpFileSyncTo:      "syncto",
	errorfs.OpFilePreallocate: "preallocate",
}

// TestFaultChild runs faultWorkload for TestFaultInjection on a real
// directory, failing one operation. It may die: that is one of the
// outcomes the parent checks.
func TestFaultChild(t *testing.T) {
	dir := os.Getenv(faultDirEnv)
	if dir == "" {
		t.Skip("only run by TestFaultInjection")
	}
	at, err := strconv.ParseInt(os.Getenv(faultAtEnv), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	out := &lines{w: os.Stdout}
	faultWorkload(faultFS(&faultInjector{at: at, out: out}), dir, out)
	out.printf("done")
}

// faultFS is the disk of the fault child: inj decides which operations
// fail.
func faultFS(inj errorfs.Injector) vfs.FS {
	return reuseFS{errorfs.Wrap(noSyncFS{vfs.Default}, inj), inj}
}

// reuseFS closes a gap in errorfs: a file it reuses (Pebble recycles WAL
// files) comes back unwrapped, so the writes and syncs of every WAL after
// the first few would escape injection.
type reuseFS struct {
	*errorfs.FS
	inj errorfs.Injector
}

func (fs reuseFS) ReuseForWrite(oldname, newname string, c vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.ReuseForWrite(oldname, newname, c)
	if err != nil {
		return nil, err
	}
	return errorfs.WrapFile(f, namedInjector{fs.inj, newname}), nil
}

// namedInjector names the file errorfs.WrapFile leaves unnamed.
type namedInjector struct {
	errorfs.Injector
	path string
}

func (n namedInjector) MaybeError(op errorfs.Op) error {
	if op.Path == "" {
		op.Path = n.path
	}
	return n.Injector.MaybeError(op)
}

// noSyncFS is the disk without fsync. A child that dies loses nothing it
// wrote (the kernel keeps it), so fsyncs change nothing TestFaultInjection
// checks but its run time; errorfs above it still counts and fails them.
// Power loss is TestCrashClone's.
type noSyncFS struct{ vfs.FS }

func (fs noSyncFS) Create(name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	return noSync(fs.FS.Create(name, c))
}

func (fs noSyncFS) OpenReadWrite(name string, c vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	return noSync(fs.FS.OpenReadWrite(name, c, opts...))
}

func (fs noSyncFS) OpenDir(name string) (vfs.File, error) { return noSync(fs.FS.OpenDir(name)) }

func (fs noSyncFS) ReuseForWrite(oldname, newname string, c vfs.DiskWriteCategory) (vfs.File, error) {
	return noSync(fs.FS.ReuseForWrite(oldname, newname, c))
}

func noSync(f vfs.File, err error) (vfs.File, error) {
	if err != nil {
		return nil, err
	}
	return noSyncFile{f}, nil
}

type noSyncFile struct{ vfs.File }

func (noSyncFile) Sync() error                { return nil }
func (noSyncFile) SyncData() error            { return nil }
func (noSyncFile) SyncTo(int64) (bool, error) { return true, nil }

// noExitSleep is the environment entry that stops a race-enabled child
// from sleeping a second before it exits (the race detector's default).
func noExitSleep() string {
	return "GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0")
}

// faultRun is what a child reported.
type faultRun struct {
	acks     []cid.Cid
	errs     []string
	bad      []string
	injected string // "<n> <op> <file>", empty if the run had fewer operations
	done     bool   // the workload returned
	exit     error
	hung     bool
	stderr   string
}

// TestFaultInjection fails, in turn, each of ~100 write, sync and create
// operations spread evenly over an append sequence (or every one of them if
// there are fewer), each in a child process on a fresh directory. Whatever
// the child did (refused the append, failed to open, died in Pebble's
// panic), the directory must then open with a working file system, hold
// every transcript the child acknowledged in a chain that verifies, and take
// new appends. No error may pass silently: it fails an append (with
// ErrWriteFailed), Open or Close, kills the process, or is logged.
func TestFaultInjection(t *testing.T) {
	if os.Getenv(faultDirEnv) != "" {
		t.Skip("running as the fault child")
	}
	// Count in-process: with nothing injected nothing can crash. Counts vary
	// a little from run to run (flushes run in the background); the points
	// only need to cover the range.
	counter := &faultInjector{out: &lines{}}
	faultWorkload(faultFS(counter), t.TempDir(), &lines{})
	total := counter.n.Load()
	want := int64(100)
	if testing.Short() {
		want = 20
	}
	points := spread(total, want)
	t.Logf("the append sequence performs %d write, sync and create operations; failing %d of them", total, len(points))
	v := alice(t).Public()
	var mu sync.Mutex
	outcomes := map[string]int{}
	t.Run("op", func(t *testing.T) {
		for _, at := range points {
			t.Run(strconv.FormatInt(at, 10), func(t *testing.T) {
				t.Parallel()
				o := checkFaultPoint(t, v, at)
				mu.Lock()
				outcomes[o]++
				mu.Unlock()
			})
		}
	})
	t.Logf("outcomes: %v", outcomes)
	if outcomes["append failed"]+outcomes["crashed"] == 0 {
		t.Fatal("no injected error reached an append: the test tested nothing")
	}
}

// spread returns want points evenly spread over 1..total (all of them if
// total <= want).
func spread(total, want int64) []int64 {
	var out []int64
	if total <= want {
		for k := int64(1); k <= total; k++ {
			out = append(out, k)
		}
		return out
	}
	for i := range want {
		out = append(out, 1+i*(total-1)/(want-1))
	}
	return out
}

// checkFaultPoint runs a child failing operation at, checks the directory
// it leaves, and names the outcome.
func checkFaultPoint(t *testing.T, v keys.PublicKey, at int64) string {
	dir := t.TempDir()
	r := runFaultChild(t, dir, at)
	what := fmt.Sprintf("error injected at operation %d (%s)", at, r.injected)
	if r.hung {
		t.Fatalf("%s: the writer hung instead of failing; stderr:\n%s", what, r.stderr)
	}
	crashed := r.exit != nil
	if crashed && !pebbleDied(r.stderr) {
		t.Fatalf("%s: the writer died of something else (%v):\n%s", what, r.exit, tail(r.stderr))
	}
	for _, b := range r.bad {
		t.Errorf("%s: %s", what, b)
	}
	if !crashed && !r.done {
		t.Fatalf("%s: the writer exited early without an error", what)
	}
	if crashed && r.injected == "" {
		t.Fatalf("the writer died with nothing injected (%v):\n%s", r.exit, tail(r.stderr))
	}
	// An error nobody returned must at least be logged: Pebble retries a
	// failed flush or compaction and reports it (BackgroundError, which
	// the store logs). Only two are harmless enough to pass unreported: a
	// file Pebble failed to remove is garbage, and a failed preallocation
	// of the log only costs speed.
	if f := strings.Fields(r.injected); len(f) == 3 && !crashed && len(r.errs) == 0 &&
		f[1] != "remove" && f[1] != "preallocate" && !strings.Contains(r.stderr, "injected error") {
		t.Errorf("%s: absorbed silently: nothing failed and nothing was logged", what)
	}

	s, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatalf("%s: reopen with a working file system: %v", what, err)
	}
	defer s.Close()
	if err := auditRecovered(s, v, r.acks); err != nil {
		t.Fatalf("%s: after reopening: %v", what, err)
	}
	// It recovers: the chain grows again.
	a := appender(t, s, alice(t))
	next := appendRange(t, a, v, 1<<20, 2)
	if h, err := s.Head(v); err != nil || h.Block != next.Block {
		t.Fatalf("%s: head after a new append is %+v (%v), the receipt says %v", what, h.Block, err, next.Block)
	}
	o := outcome(r, crashed)
	if crashed {
		t.Logf("%s: %s: %s", what, o, crashReason(r.stderr))
	} else {
		t.Logf("%s: %s %q", what, o, r.errs)
	}
	return o
}

// crashReason is the line of a child's stderr that says why it died, with
// the Pebble function that panicked.
func crashReason(stderr string) string {
	var why, where string
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimSpace(l)
		if why == "" && (strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ")) {
			why = l
		}
		if where == "" && strings.Contains(l, "cockroachdb/pebble/v2.") && !strings.HasPrefix(l, "/") {
			where = l
		}
	}
	return why + " in " + where
}

func outcome(r faultRun, crashed bool) string {
	switch {
	case r.injected == "":
		return "not reached"
	case crashed:
		return "crashed"
	case hasPrefix(r.errs, "open"):
		return "open failed"
	case hasPrefix(r.errs, "appender"):
		return "appender failed"
	case hasPrefix(r.errs, "append"):
		return "append failed"
	case hasPrefix(r.errs, "close"):
		return "close failed"
	default:
		return "absorbed"
	}
}

// pebbleDied reports whether a child died of the injected error: a panic
// with it, or the fatal error a panic with DB.mu released turns into in
// Pebble's WAL rotation or in a compaction running when the WAL failed
// (seen once in CI, a failed WAL fsync at operation 98 of 186).
func pebbleDied(stderr string) bool {
	return strings.Contains(stderr, "injected error") ||
		strings.Contains(stderr, "fatal error: sync: unlock of unlocked mutex") &&
			(strings.Contains(stderr, "pebble/v2.(*DB).rotateWAL") || strings.Contains(stderr, "pebble/v2.(*DB).compact"))
}

func hasPrefix(errs []string, step string) bool {
	for _, e := range errs {
		if strings.HasPrefix(e, step) {
			return true
		}
	}
	return false
}

func tail(s string) string {
	if len(s) > 4000 {
		return "..." + s[len(s)-4000:]
	}
	return s
}

func runFaultChild(t *testing.T, dir string, at int64) faultRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestFaultChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), faultDirEnv+"="+dir, faultAtEnv+"="+strconv.FormatInt(at, 10), noExitSleep())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var r faultRun
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		kind, rest, _ := strings.Cut(line, " ")
		switch kind {
		case "ack":
			c, err := cid.Decode(rest)
			if err != nil {
				t.Fatalf("child line %q: %v", line, err)
			}
			r.acks = append(r.acks, c)
		case "err":
			r.errs = append(r.errs, rest)
		case "bad":
			r.bad = append(r.bad, rest)
		case "injected":
			r.injected = rest
		case "done":
			r.done = true
		}
	}
	r.exit = cmd.Wait()
	r.hung = ctx.Err() != nil
	r.stderr = stderr.String()
	return r
}

// auditRecovered checks a store reopened after a fault: v's chain links
// and is signed, every block's checkpoint is its log's, the head is the
// last block, every acknowledged transcript is in the log, and verify's
// audit of the whole store (which reads and checks every object) passes.
func auditRecovered(s *ledger.Store, v keys.PublicKey, acked []cid.Cid) error {
	tree := record.NewTree()
	var last ledger.StoredBlock
	var n uint64
	for b, err := range s.Blocks(v, 0) {
		if err != nil {
			return err
		}
		if b.Height != n {
			return fmt.Errorf("block %d follows block %d", b.Height, n-1)
		}
		if n > 0 && !b.Prev.Cid.Equals(last.CID) {
			return fmt.Errorf("block %d does not link block %d", b.Height, n-1)
		}
		if err := b.VerifySignature(); err != nil {
			return fmt.Errorf("block %d: %w", b.Height, err)
		}
		for _, c := range b.TranscriptCIDs() {
			tree.Append(c, nil)
		}
		if tree.Checkpoint() != b.Checkpoint {
			return fmt.Errorf("block %d: checkpoint %+v, its log gives %+v", b.Height, b.Checkpoint, tree.Checkpoint())
		}
		last, n = b, n+1
	}
	h, err := s.Head(v)
	switch {
	case n == 0 && !errors.Is(err, ledger.ErrNotFound):
		return fmt.Errorf("no blocks, but the head is %+v (%v)", h.Block, err)
	case n > 0 && err != nil:
		return fmt.Errorf("head: %w", err)
	case n > 0 && (!h.Block.CID.Equals(last.CID) || h.Checkpoint != tree.Checkpoint()):
		return fmt.Errorf("head %v %+v, the blocks end at %v %+v", h.Block, h.Checkpoint, last.Ref(), tree.Checkpoint())
	}
	inLog := map[cid.Cid]bool{}
	for r, err := range s.Leaves(v, 0) {
		if err != nil {
			return err
		}
		inLog[r.CID] = true
	}
	if uint64(len(inLog)) != tree.Size() {
		return fmt.Errorf("%d leaves stored, the blocks link %d transcripts", len(inLog), tree.Size())
	}
	for _, c := range acked {
		if !inLog[c] {
			return fmt.Errorf("acknowledged transcript %s lost (log of %d)", c, tree.Size())
		}
	}
	heads, err := verify.StoreHeads(s, verify.StoreScope{})
	if err != nil {
		return err
	}
	rep, err := verify.VerifyStore(s, heads, verify.StoreScope{}, verify.Options{Challenges: verify.NewMemSet()})
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	if !rep.OK || uint64(rep.Transcripts) != tree.Size() {
		return fmt.Errorf("verify: %+v", rep)
	}
	return nil
}

// TestCrashClone takes power-loss states of a store under concurrent
// appends at random moments (vfs.MemFS.CrashClone: everything synced, and
// a random share of what was not, down to 4 KiB pieces of files and
// directory entries) and opens each: every transcript acknowledged before
// the clone is there, the head agrees with the blocks, verify passes, and
// the chain takes new appends.
func TestCrashClone(t *testing.T) {
	clones := 30
	if testing.Short() {
		clones = 10
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	k := alice(t)
	v := k.Public()
	fs := vfs.NewCrashableMem()
	s, err := ledger.Open("db", ledger.WithPebbleOptions(faultPebble(noReuseFS{fs})), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	a := appender(t, s, k)

	var mu sync.Mutex
	var acked []cid.Cid
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range uint64(3) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := uint64(0); ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				n := w<<32 | i<<2
				var ts []record.Transcript
				for j := range 1 + i%3 {
					ts = append(ts, recordtest.Transcript(v, n|j, 1500))
				}
				r, err := a.Append(context.Background(), recordtest.Anchor(1), ts, nil)
				if err != nil {
					t.Errorf("append: %v", err)
					return
				}
				mu.Lock()
				acked = append(acked, r.Transcripts...)
				mu.Unlock()
			}
		}()
	}
	type crashState struct {
		fs       *vfs.MemFS
		acked    []cid.Cid
		unsynced int
		seed     uint64
	}
	var states []crashState
	for range clones {
		time.Sleep(time.Duration(rng.IntN(40)) * time.Millisecond)
		mu.Lock()
		before := append([]cid.Cid(nil), acked...)
		mu.Unlock()
		st := crashState{acked: before, unsynced: rng.IntN(101), seed: rng.Uint64()}
		st.fs = fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: st.unsynced, RNG: rand.New(rand.NewPCG(st.seed, 2))})
		states = append(states, st)
	}
	close(stop)
	wg.Wait()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if len(states[len(states)-1].acked) == 0 {
		t.Fatal("nothing was acknowledged: the test tested nothing")
	}
	for i, st := range states {
		what := fmt.Sprintf("crash state %d (%d acknowledged, %d%% of unsynced data kept, seed %d)", i, len(st.acked), st.unsynced, st.seed)
		s, err := ledger.Open("db", ledger.WithPebbleOptions(faultPebble(st.fs)), ledger.WithNetwork(recordtest.Network))
		if err != nil {
			t.Fatalf("%s: open: %v", what, err)
		}
		if err := auditRecovered(s, v, st.acked); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		next := appendRange(t, appender(t, s, k), v, 1<<40, 2)
		if h, err := s.Head(v); err != nil || h.Block != next.Block {
			t.Fatalf("%s: head after a new append is %+v (%v), the receipt says %v", what, h.Block, err, next.Block)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("%s: close: %v", what, err)
		}
	}
	t.Logf("%d crash states opened, the last with %d acknowledged transcripts", len(states), len(states[len(states)-1].acked))
}
