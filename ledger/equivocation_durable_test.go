package ledger_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// syncGate holds every file sync while it is shut, so that a test can keep
// a batch applied but not yet durable.
type syncGate struct {
	mu      sync.Mutex
	shut    bool
	release chan struct{}
	// waiting receives once for every sync that starts to wait.
	waiting chan struct{}
}

func newSyncGate() *syncGate {
	return &syncGate{release: make(chan struct{}), waiting: make(chan struct{}, 64)}
}

func (g *syncGate) close() {
	g.mu.Lock()
	g.shut = true
	g.mu.Unlock()
}

func (g *syncGate) open() {
	g.mu.Lock()
	if g.shut {
		g.shut = false
		close(g.release)
		g.release = make(chan struct{})
	}
	g.mu.Unlock()
}

func (g *syncGate) wait() {
	g.mu.Lock()
	shut, release := g.shut, g.release
	g.mu.Unlock()
	if shut {
		g.waiting <- struct{}{}
		<-release
	}
}

// gateFS is a crashable MemFS (without file reuse, see noReuseFS) whose
// files' syncs pass the gate first.
type gateFS struct {
	noReuseFS
	g *syncGate
}

func (fs gateFS) wrap(f vfs.File, err error) (vfs.File, error) {
	if err != nil {
		return nil, err
	}
	return gateFile{f, fs.g}, nil
}

func (fs gateFS) Create(name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	return fs.wrap(fs.noReuseFS.Create(name, c))
}

func (fs gateFS) ReuseForWrite(oldname, newname string, c vfs.DiskWriteCategory) (vfs.File, error) {
	return fs.wrap(fs.noReuseFS.ReuseForWrite(oldname, newname, c))
}

func (fs gateFS) OpenReadWrite(name string, c vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	return fs.wrap(fs.noReuseFS.OpenReadWrite(name, c, opts...))
}

type gateFile struct {
	vfs.File
	g *syncGate
}

func (f gateFile) Sync() error     { f.g.wait(); return f.File.Sync() }
func (f gateFile) SyncData() error { f.g.wait(); return f.File.SyncData() }
func (f gateFile) SyncTo(n int64) (bool, error) {
	f.g.wait()
	return f.File.SyncTo(n)
}

// TestEquivocationReportedOnceProofIsDurable: two peers gossip the
// same conflicting block at once. The first Put writes the fork proof and
// waits for its fsync; the second finds the proof's key in the live
// database and returns ErrEquivocation at once, naming a proof that
// readers cannot see yet and that a crash would lose. A Put of a block
// that is already stored waits for it to be durable (waitVisible); one
// that reports a known fork proof must too (the network layer reads the
// proof with Object to publish it as soon as Put returns).
func TestEquivocationReportedOnceProofIsDurable(t *testing.T) {
	p := &peerChain{t: t, key: alice(t)}
	b0 := p.build(1, nil)
	p.accept(b0)
	first := p.build(1, nil)
	second := p.build(1, func(h *record.Header, _ map[cid.Cid][]byte) { h.TimeMS += 7 })

	mem := vfs.NewCrashableMem()
	g := newSyncGate()
	s, err := ledger.Open("db", ledger.WithPebbleOptions(&pebble.Options{FS: gateFS{noReuseFS{mem}, g}}), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	defer g.open()
	for _, b := range []peerBlock{b0, first} {
		if _, err := s.Put(b.raw, b.objs); err != nil {
			t.Fatal(err)
		}
	}

	g.close()
	firstPut := make(chan error, 1)
	go func() { _, err := s.Put(second.raw, nil); firstPut <- err }()
	<-g.waiting // the fork proof's batch is applied; its fsync waits

	type outcome struct {
		err     error
		visible error // Object(proof) right when Put returned
		durable bool  // the proof survives a crash right when Put returned
	}
	secondPut := make(chan outcome, 1)
	go func() {
		_, err := s.Put(second.raw, nil)
		var eq *ledger.EquivocationError
		if !errors.As(err, &eq) {
			secondPut <- outcome{err: err}
			return
		}
		_, visible := s.Object(eq.Proof)
		secondPut <- outcome{err: err, visible: visible, durable: holdsForkProof(t, mem.CrashClone(vfs.CrashCloneCfg{}), eq.Proof)}
	}()
	var got outcome
	select {
	case got = <-secondPut:
	case <-time.After(300 * time.Millisecond):
		// A store that waits for durability is still waiting: let the
		// fsync through and take its answer. (A store that does not
		// answers within microseconds, and fails below.)
		g.open()
		got = <-secondPut
	}
	g.open()
	if err := <-firstPut; !errors.Is(err, ledger.ErrEquivocation) {
		t.Fatalf("first Put of the conflicting block: %v", err)
	}
	if !errors.Is(got.err, ledger.ErrEquivocation) {
		t.Fatalf("second Put of the conflicting block: %v", got.err)
	}
	if got.visible != nil || !got.durable {
		t.Fatalf("Put returned %v while the proof was not durable: Object(proof) = %v, survives a crash = %v", got.err, got.visible, got.durable)
	}
}

// holdsForkProof opens a crash clone of a store and reports whether it
// holds the fork proof c.
func holdsForkProof(t *testing.T, fs *vfs.MemFS, c cid.Cid) bool {
	s, err := ledger.Open("db", ledger.WithPebbleOptions(&pebble.Options{FS: fs}), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Errorf("open crash clone: %v", err)
		return false
	}
	defer s.Close()
	_, err = s.Object(c)
	return err == nil
}
