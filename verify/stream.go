package verify

import (
	"runtime"
	"sync"
	"time"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/record"
)

// streamReader is how a pipeline's workers share a stream: each reads the
// next transcript itself and checks it, one worker reading at a time.
//
// A worker that finds another reading yields and tries again before it
// sleeps on the lock, since a read from a file is short (a copy out of a
// buffer, now and then a read call). A goroutine woken from a lock or a
// channel waits behind the goroutine that woke it while another core may
// be idle: an execution trace of the archive benchmark on 2 cores, with
// one goroutine reading for the workers, showed one goroutine running
// alone, others runnable, for about half of every block. A stream that
// blocks (a pipe) still puts the waiting workers to sleep, after spinFor.
type streamReader struct {
	p     *pipeline
	links []codec.Link
	fetch Fetch
	mu    sync.Mutex
	// next is the next link to read; end is set once the stream failed.
	// Both are guarded by mu.
	next int
	end  bool
}

// loop reads and checks transcripts until there are none left to read.
func (r *streamReader) loop(release func([]byte)) {
	p := r.p
	var dec record.TranscriptDecoder
	for p.take() {
		i, ok := r.read()
		if !ok {
			return
		}
		it := &p.items[i]
		if it.fetchErr == nil {
			p.vf.check(p.b, r.links[i].Cid, it.raw, it, &dec)
			if release != nil {
				release(it.raw)
			}
			it.raw = nil
		}
		p.done(it)
	}
}

// read fetches the next transcript into its item; false when there is
// none to read (all read, or the stream failed).
func (r *streamReader) read() (int, bool) {
	r.lock()
	defer r.mu.Unlock()
	if r.end || r.next >= len(r.links) {
		return 0, false
	}
	i := r.next
	r.next++
	it := &r.p.items[i]
	it.raw, it.fetchErr = r.fetch(r.links[i].Cid)
	if it.fetchErr != nil {
		// The stream's position is lost: nothing after it can be read.
		r.end = true
	}
	return i, true
}

// spinFor bounds how long a worker waiting for the stream yields before
// it sleeps on the lock: long enough for a read call that refills the
// reader's buffer (8-13 us on the benchmark machine; a bound of 64
// yields, about 15 us, measured slower), short enough that workers
// waiting on a pipe do not spin.
const spinFor = 100 * time.Microsecond

func (r *streamReader) lock() {
	if r.mu.TryLock() {
		return
	}
	for deadline := time.Now().Add(spinFor); time.Now().Before(deadline); {
		runtime.Gosched()
		if r.mu.TryLock() {
			return
		}
	}
	r.mu.Lock()
}
