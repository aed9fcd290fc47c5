package node

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"time"

	"github.com/affine-ledger/ledger/ledger"
)

// Checkpoint is a copy of a running node's store, handed to this process
// to read (see control.go). It stays until Close.
type Checkpoint struct {
	// Dir is the checkpoint's store directory: open it read-only.
	Dir  string
	conn net.Conn
	// lock is a reader's lock on Dir, held from the answer on: the
	// connection keeps the running node from removing the checkpoint, the
	// lock keeps the sweep of the node's next start from it.
	lock io.Closer
}

// RequestCheckpoint asks the node running on dataDir for a checkpoint of
// its store. It fails if no node answers on its control socket.
func RequestCheckpoint(dataDir string) (*Checkpoint, error) {
	path := ControlSocket(dataDir)
	conn, err := net.DialTimeout("unix", path, requestTimeout)
	if err != nil {
		return nil, fmt.Errorf("ask the node for a checkpoint: %w", err)
	}
	conn.SetDeadline(time.Now().Add(time.Minute))
	if _, err := conn.Write([]byte("checkpoint\n")); err != nil {
		conn.Close()
		return nil, fmt.Errorf("ask the node for a checkpoint on %s: %w", path, err)
	}
	line, err := bufio.NewReader(conn).ReadBytes('\n')
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("ask the node for a checkpoint on %s: no answer: %w", path, err)
	}
	var r controlReply
	if err := json.Unmarshal(line, &r); err != nil {
		conn.Close()
		return nil, fmt.Errorf("ask the node for a checkpoint on %s: answer %q: %w", path, line, err)
	}
	if r.Error != "" || r.Dir == "" {
		conn.Close()
		return nil, fmt.Errorf("the node on %s made no checkpoint: %s", path, r.Error)
	}
	lock, err := ledger.ReaderFS(nil).Lock(filepath.Join(r.Dir, "LOCK"))
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("lock the checkpoint %s: %w", r.Dir, err)
	}
	conn.SetDeadline(time.Time{})
	return &Checkpoint{Dir: r.Dir, conn: conn, lock: lock}, nil
}

// Close tells the node this process is done with the checkpoint, which it
// then removes. Close the store opened on Dir first.
func (c *Checkpoint) Close() error {
	if c.conn == nil {
		return errors.New("checkpoint closed twice")
	}
	// The lock first: the node removes the checkpoint when the
	// connection ends, unless a reader still holds its lock.
	err := errors.Join(c.lock.Close(), c.conn.Close())
	c.conn = nil
	return err
}
