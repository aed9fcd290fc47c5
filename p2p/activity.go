package p2p

import "sync"

// activity tracks work in progress so that Close can wait for it, and
// refuses new work once closing began.
type activity struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

func (a *activity) enter() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return false
	}
	a.wg.Add(1)
	return true
}

func (a *activity) exit() { a.wg.Done() }

func (a *activity) close() {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.wg.Wait()
}

// hub broadcasts "something changed" to waiters.
type hub struct {
	mu sync.Mutex
	ch chan struct{}
}

func newHub() *hub { return &hub{ch: make(chan struct{})} }

func (h *hub) wait() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ch
}

func (h *hub) notify() {
	h.mu.Lock()
	close(h.ch)
	h.ch = make(chan struct{})
	h.mu.Unlock()
}
