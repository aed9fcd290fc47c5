package validator

import (
	"log/slog"
	"sync"
	"time"

	"github.com/affine-ledger/ledger/inference"
	"github.com/affine-ledger/ledger/keys"
)

// endpointWarnEvery is how often a miner whose calls fail is warned of.
// A miner's failures are its own (it loses the challenges), but an
// endpoint that fails every call usually means a wrong commitment (a
// model name its server does not serve) that its operator, or the
// validator's, should hear of: local miners answering at once with an
// error put thousands of challenges a minute in the ledger in silence.
const endpointWarnEvery = time.Minute

// endpointWarnings rate-limits the warnings, per miner hotkey (a subnet's
// miners, so a bounded set).
type endpointWarnings struct {
	mu   sync.Mutex
	last map[keys.PublicKey]time.Time
	// since counts a miner's failed episodes since its last warning.
	since map[keys.PublicKey]int
}

// failed notes an episode of s that ended on a failed call, and warns if
// the miner was not warned of within endpointWarnEvery.
func (w *endpointWarnings) failed(log *slog.Logger, now time.Time, s *sideRun, call inference.Call, errText string) {
	m := s.miner.Hotkey
	w.mu.Lock()
	if w.last == nil {
		w.last, w.since = map[keys.PublicKey]time.Time{}, map[keys.PublicKey]int{}
	}
	w.since[m]++
	last, warned := w.last[m]
	if warned && now.Sub(last) < endpointWarnEvery {
		w.mu.Unlock()
		return
	}
	count := w.since[m]
	w.last[m], w.since[m] = now, 0
	w.mu.Unlock()
	log.Warn("miner calls failing: its challenges are scored as lost",
		"miner", m, "model", s.ep.Model, "endpoint", s.ep.BaseURL, "kind", call.ErrorKind, "http_status", call.Status,
		"error", errText, "failed_episodes", count)
}
