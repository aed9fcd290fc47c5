package verify

import (
	"errors"
	"sync"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/ledger"
)

// readers lends the verifier's workers a store's object readers, one per
// goroutine reading at a time, kept from block to block: a reader's
// iterator is cheaper per object than a lookup of its own.
type readers struct {
	s    *ledger.Store
	mu   sync.Mutex
	free []*ledger.ObjectReader
	all  []*ledger.ObjectReader
}

func newReaders(s *ledger.Store) *readers { return &readers{s: s} }

// visit reads c with a free reader (a new one if none is free) and calls fn
// with its bytes, valid only during the call.
func (rs *readers) visit(c cid.Cid, fn func(raw []byte) error) error {
	rs.mu.Lock()
	var r *ledger.ObjectReader
	if n := len(rs.free); n > 0 {
		r, rs.free = rs.free[n-1], rs.free[:n-1]
		rs.mu.Unlock()
	} else {
		rs.mu.Unlock()
		var err error
		if r, err = rs.s.NewObjectReader(); err != nil {
			return err
		}
		rs.mu.Lock()
		rs.all = append(rs.all, r)
		rs.mu.Unlock()
	}
	defer func() {
		rs.mu.Lock()
		rs.free = append(rs.free, r)
		rs.mu.Unlock()
	}()
	return r.Read(c, fn)
}

// close closes every reader; none may be in use.
func (rs *readers) close() error {
	var errs []error
	for _, r := range rs.all {
		errs = append(errs, r.Close())
	}
	rs.all, rs.free = nil, nil
	return errors.Join(errs...)
}
