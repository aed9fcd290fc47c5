package verify

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/keys"
)

// Location is where a challenge was first used in a chain.
type Location struct {
	Height uint64
	Index  uint32
}

// ChallengeSet remembers which challenges each validator's log put to
// which miner: the one piece of verifier state that grows with the ledger.
type ChallengeSet interface {
	// Add records that v's log put id to miner at loc. If it already did,
	// Add returns the first location and dup true, recording nothing.
	Add(v, miner keys.PublicKey, id challenge.ID, loc Location) (first Location, dup bool, err error)
	Close() error
}

// MemSet is a ChallengeSet in memory, for tests and small ledgers.
type MemSet map[string]Location

// NewMemSet returns an empty MemSet.
func NewMemSet() MemSet { return MemSet{} }

// Add implements ChallengeSet.
func (m MemSet) Add(v, miner keys.PublicKey, id challenge.ID, loc Location) (Location, bool, error) {
	k, err := setKey(v, miner, id)
	if err != nil {
		return Location{}, false, err
	}
	if first, ok := m[string(k)]; ok {
		return first, true, nil
	}
	m[string(k)] = loc
	return loc, false, nil
}

// Close implements ChallengeSet.
func (MemSet) Close() error { return nil }

// DiskSet is a ChallengeSet in a scratch Pebble directory, so that a
// verifier's memory does not grow with the ledger. Without a WAL: the set
// lives only as long as one run.
type DiskSet struct {
	db  *pebble.DB
	dir string
}

// NewDiskSet creates a set in a new temporary directory under dir ("" for
// the system's), removed by Close.
func NewDiskSet(dir string) (*DiskSet, error) {
	tmp, err := os.MkdirTemp(dir, "ledger-verify-*")
	if err != nil {
		return nil, fmt.Errorf("challenge set: %w", err)
	}
	// Most lookups are for absent keys (a challenge not seen before): bloom
	// filters answer those without reading tables. Small memtable and
	// cache: the set's memory must not grow with the ledger.
	cache := pebble.NewCache(4 << 20)
	defer cache.Unref()
	opts := &pebble.Options{DisableWAL: true, Logger: quiet{}, MemTableSize: 4 << 20, Cache: cache}
	for i := range opts.Levels {
		opts.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	db, err := pebble.Open(tmp, opts)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("challenge set: %w", err)
	}
	return &DiskSet{db: db, dir: tmp}, nil
}

// Add implements ChallengeSet.
func (d *DiskSet) Add(v, miner keys.PublicKey, id challenge.ID, loc Location) (Location, bool, error) {
	k, err := setKey(v, miner, id)
	if err != nil {
		return Location{}, false, err
	}
	val, closer, err := d.db.Get(k)
	switch {
	case err == nil:
		defer closer.Close()
		if len(val) != 12 {
			return Location{}, false, fmt.Errorf("challenge set: value of %d bytes", len(val))
		}
		return Location{Height: binary.BigEndian.Uint64(val), Index: binary.BigEndian.Uint32(val[8:])}, true, nil
	case !errors.Is(err, pebble.ErrNotFound):
		return Location{}, false, err
	}
	var buf [12]byte
	binary.BigEndian.PutUint64(buf[:], loc.Height)
	binary.BigEndian.PutUint32(buf[8:], loc.Index)
	return loc, false, d.db.Set(k, buf[:], pebble.NoSync)
}

// Close removes the scratch directory.
func (d *DiskSet) Close() error {
	err := d.db.Close()
	if rerr := os.RemoveAll(d.dir); err == nil {
		err = rerr
	}
	return err
}

func setKey(v, miner keys.PublicKey, id challenge.ID) ([]byte, error) {
	bin, err := id.MarshalBinary()
	if err != nil {
		return nil, err
	}
	k := make([]byte, 0, 64+len(bin))
	return append(append(append(k, v[:]...), miner[:]...), bin...), nil
}

type quiet struct{}

func (quiet) Infof(string, ...any)           {}
func (quiet) Errorf(string, ...any)          {}
func (quiet) Fatalf(format string, a ...any) { panic(fmt.Sprintf(format, a...)) }
