package node

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/affine-ledger/ledger/ledger"
)

// A running node holds its store for writing, which keeps every other
// process out of it (ledger.ErrLocked): an audit would read tables the
// node's compactions delete. So the node answers on a Unix socket in its
// data directory, readable by its own user only, with checkpoints of its
// store (ledger.Store.Checkpoint) that readers open instead. A checkpoint
// lives as long as the connection that asked for it and is removed when
// the reader hangs up, or, if the node stopped first, when the node next
// starts.
//
// The protocol is one line each way: the reader sends "checkpoint\n"; the
// node answers one JSON object, {"dir": path} or {"error": text}, and a
// newline; the reader then keeps the connection open while it reads.

// ControlSocket is the Unix socket a running node answers readers on.
func ControlSocket(dataDir string) string { return filepath.Join(dataDir, "node.sock") }

// CheckpointsDir holds the checkpoints a node has handed to readers.
func CheckpointsDir(dataDir string) string { return filepath.Join(dataDir, "checkpoints") }

const (
	// maxCheckpoints bounds the checkpoints open at once: each holds on to
	// tables the store has since compacted away, in disk space.
	maxCheckpoints = 4
	// requestTimeout bounds how long a connection may take to ask.
	requestTimeout = 5 * time.Second
	maxRequest     = 64
)

type controlReply struct {
	Dir   string `json:"dir,omitempty"`
	Error string `json:"error,omitempty"`
}

type control struct {
	store   *ledger.Store
	dataDir string
	ln      net.Listener
	slots   chan struct{}
	seq     atomic.Uint64
	wg      sync.WaitGroup

	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	closing bool
}

// startControl sweeps the checkpoints a previous run left and listens on
// the control socket. Another node cannot be running on dataDir: the
// store's lock was taken first, so a socket file left behind is stale.
func startControl(store *ledger.Store, dataDir string) (*control, error) {
	// Readers are told where their checkpoint is, from their own working
	// directories.
	dataDir, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	sweepCheckpoints(CheckpointsDir(dataDir))
	path := ControlSocket(dataDir)
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("control socket: %w", err)
	}
	c := &control{store: store, dataDir: dataDir, ln: ln, slots: make(chan struct{}, maxCheckpoints), conns: map[net.Conn]struct{}{}}
	c.wg.Add(1)
	go c.accept()
	return c, nil
}

func (c *control) accept() {
	defer c.wg.Done()
	var backoff time.Duration
	for {
		conn, err := c.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			// Out of descriptors (EMFILE), say, while clients hold
			// connections: they end within requestTimeout, and accepting
			// must go on then, as net/http's server does.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		c.mu.Lock()
		if c.closing {
			c.mu.Unlock()
			conn.Close()
			return
		}
		c.conns[conn] = struct{}{}
		c.wg.Add(1)
		c.mu.Unlock()
		go c.serve(conn)
	}
}

func (c *control) serve(conn net.Conn) {
	defer c.wg.Done()
	defer func() {
		c.mu.Lock()
		delete(c.conns, conn)
		c.mu.Unlock()
		conn.Close()
	}()
	reply := func(r controlReply) bool {
		b, _ := json.Marshal(r)
		conn.SetWriteDeadline(time.Now().Add(requestTimeout))
		_, err := conn.Write(append(b, '\n'))
		return err == nil
	}
	conn.SetReadDeadline(time.Now().Add(requestTimeout))
	line, err := bufio.NewReader(io.LimitReader(conn, maxRequest)).ReadString('\n')
	if err != nil {
		reply(controlReply{Error: fmt.Sprintf("no request line within %d bytes and %v", maxRequest, requestTimeout)})
		return
	}
	if line != "checkpoint\n" {
		reply(controlReply{Error: fmt.Sprintf("unknown request %q (the one request is \"checkpoint\")", line)})
		return
	}
	select {
	case c.slots <- struct{}{}:
		defer func() { <-c.slots }()
	default:
		reply(controlReply{Error: fmt.Sprintf("%d checkpoints are open already; try again when a reader is done", maxCheckpoints)})
		return
	}
	dir := filepath.Join(CheckpointsDir(c.dataDir), strconv.FormatInt(time.Now().UnixNano(), 10)+"-"+strconv.FormatUint(c.seq.Add(1), 10))
	if err := c.store.Checkpoint(dir); err != nil {
		os.RemoveAll(dir)
		reply(controlReply{Error: err.Error()})
		return
	}
	if reply(controlReply{Dir: dir}) {
		// Held until the reader hangs up. Anything it sends is a
		// protocol error and ends the hold the same way.
		conn.SetReadDeadline(time.Time{})
		conn.Read(make([]byte, 1))
	}
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	if !closing {
		// A reader still holding the checkpoint keeps it (ErrLocked);
		// the next start sweeps it.
		ledger.RemoveCheckpoint(dir)
	}
}

// close stops answering and hangs up on every reader, leaving their
// checkpoints to them: they may still be reading, and the next start
// sweeps what is left. It returns once no checkpoint is being written,
// before the store closes.
func (c *control) close() error {
	c.mu.Lock()
	c.closing = true
	for conn := range c.conns {
		conn.Close()
	}
	c.mu.Unlock()
	err := c.ln.Close()
	c.wg.Wait()
	return err
}

// sweepCheckpoints removes the checkpoints in dir no reader holds.
func sweepCheckpoints(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		ledger.RemoveCheckpoint(filepath.Join(dir, e.Name()))
	}
}
