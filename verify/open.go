package verify

import (
	"github.com/cockroachdb/pebble/v2"

	"github.com/affine-ledger/ledger/ledger"
)

// auditCache is the block cache of a store opened for an audit. An audit
// reads every object once, so a cache does not help it, while Pebble's
// default 8 MiB cache, churned by a whole ledger passing through it, left
// about 100 MB of fragmented C heap behind (BenchmarkVerifyMemory: peak RSS
// 141 MB against 39 MB with 1 MiB at 100k transcripts).
const auditCache = 1 << 20

// OpenStore opens the store in dir for reading it through, as verify,
// export and the proof commands do. It opens it read-only: an audit
// leaves the store it reads byte for byte as it found it (the auditor's
// copy), and a directory holding no ledger store is
// ledger.ErrNotStore rather than a new empty store. opts come after its
// own.
func OpenStore(dir string, opts ...ledger.Option) (*ledger.Store, error) {
	cache := pebble.NewCache(auditCache)
	defer cache.Unref() // the store holds its own reference
	own := ledger.WithPebbleOptions(&pebble.Options{Cache: cache, EventListener: tolerateCorruption()})
	return ledger.OpenReadOnly(dir, append([]ledger.Option{own}, opts...)...)
}
