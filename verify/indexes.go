package verify

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/internal/rmtree"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
)

// A store's challenge, miner and duel indexes (spec/store.md) are derived
// data: no signed block commits to them, but a miner's view of its
// transcripts, a duel's, and the store's refusal of a reused challenge are
// read from them. An audit holds them to the transcripts it verifies
// (spec/verify.md, B10) without a lookup per entry: the challenge index is
// keyed by challenge, in no order a log is written in, so lookups were
// random reads, which doubled the audit's time. Instead, as each chain's
// transcripts are appended, the digests of the entries each one implies
// go to a scratch file, one fixed-size record per leaf; after the chains,
// one sequential scan of the indexes compares each entry with the record
// of the leaf its value names. Every audited leaf must then have matched
// each of its entries once; a shortfall is looked for leaf by leaf (the
// slow way, only in a damaged store), to name the entry missing.

// digestSize is the part of an entry's SHA-256 a record keeps: finding an
// entry with another key or value and the same digest is a second
// preimage of 128 bits.
const digestSize = 16

// slot is where a record keeps an index's digest.
func slot(k ledger.IndexKind) int {
	switch k {
	case ledger.ChallengeIndex:
		return 0
	case ledger.MinerIndex:
		return 1
	}
	return 2
}

const recordSize = 3 * digestSize

type digest [digestSize]byte

// digestOf is the digest of an entry's kind, key and value.
func digestOf(e ledger.IndexEntry, buf []byte) (digest, []byte) {
	buf = append(buf[:0], byte(e.Kind))
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(e.Key)))
	buf = append(append(buf, e.Key...), e.Value...)
	sum := sha256.Sum256(buf)
	return digest(sum[:digestSize]), buf
}

// ChainIndexes records a chain's transcripts for the check of a store's
// indexes (Start.Indexes). Made by VerifyStore.
type ChainIndexes struct {
	v     keys.PublicKey
	file  *os.File
	w     *bufio.Writer
	start uint64 // the first leaf recorded
	end   uint64 // one past the last
	duels uint64 // transcripts recorded with a duel ID
	buf   []byte
	err   error // the scratch file's first error

	// ended is set when the chain's audit ended without failing, head
	// being its last block: only then are its entries checked.
	ended bool
	head  cid.Cid

	// The scan's tally: entries that matched their leaf's record, entries
	// of leaves below start, and the first entry of a leaf past end.
	matched [3]uint64
	below   [3]uint64
	beyond  string
	// differs describes the first entry that names an audited leaf and
	// is none of its transcript's, or whose value is no place; differsAt
	// are the leaves its key and value name.
	differs   string
	differsAt []uint64
	// failed is set once the chain's indexes are reported: once a chain.
	failed bool
	// window caches records read back, so that entries of nearby leaves
	// (a miner's, a duel's) cost no read each.
	window      []byte
	windowStart uint64
}

// appended records the entries the transcript the log holds at leaf
// implies.
func (ci *ChainIndexes) appended(t ledger.IndexedTranscript) {
	if ci.err != nil {
		return
	}
	if t.Ref.Leaf != ci.end {
		ci.err = fmt.Errorf("index record of leaf %d after leaf %d", t.Ref.Leaf, ci.end)
		return
	}
	entries, err := t.Entries()
	if err != nil {
		ci.err = err
		return
	}
	var rec [recordSize]byte
	for _, e := range entries {
		var d digest
		d, ci.buf = digestOf(e, ci.buf)
		copy(rec[slot(e.Kind)*digestSize:], d[:])
	}
	if !t.Duel.IsZero() {
		ci.duels++
	}
	if _, err := ci.w.Write(rec[:]); err != nil {
		ci.err = fmt.Errorf("write the index records: %w", err)
	}
	ci.end++
}

// record returns leaf's record, read back from the scratch file.
func (ci *ChainIndexes) record(leaf uint64) ([]byte, error) {
	const window = 128 // records per read
	if ci.window == nil || leaf < ci.windowStart || leaf >= ci.windowStart+uint64(len(ci.window)/recordSize) {
		ci.windowStart = max(leaf-leaf%window, ci.start)
		n := min(window, ci.end-ci.windowStart)
		ci.window = slices.Grow(ci.window[:0], int(n)*recordSize)[:int(n)*recordSize]
		if _, err := ci.file.ReadAt(ci.window, int64(ci.windowStart-ci.start)*recordSize); err != nil {
			ci.window = nil
			return nil, fmt.Errorf("read the index records: %w", err)
		}
	}
	off := (leaf - ci.windowStart) * recordSize
	return ci.window[off : off+recordSize], nil
}

// entry tallies one entry of the chain's validator.
func (ci *ChainIndexes) entry(e ledger.ScannedEntry) error {
	k := slot(e.Kind)
	switch {
	case !e.LeafOK:
		ci.differ(e, "whose value %x is no transcript's place", e.Value)
		return nil
	case e.Leaf < ci.start:
		ci.below[k]++
		return nil
	case e.Leaf >= ci.end:
		if ci.beyond == "" {
			ci.beyond = fmt.Sprintf("the store's %s index holds an entry of validator %s's log (key %x) naming leaf %d, past the log's %d transcripts", e.Kind, ci.v, e.Key, e.Leaf, ci.end)
		}
		return nil
	}
	rec, err := ci.record(e.Leaf)
	if err != nil {
		return err
	}
	var d digest
	d, ci.buf = digestOf(e.IndexEntry, ci.buf)
	if [digestSize]byte(rec[k*digestSize:]) != d {
		ci.differ(e, "naming leaf %d, which is none of the entries of the log's transcript there", e.Leaf)
		return nil
	}
	ci.matched[k]++
	return nil
}

// differ notes e as the first entry that is none of the log's, unless one
// is noted already.
func (ci *ChainIndexes) differ(e ledger.ScannedEntry, format string, args ...any) {
	if ci.differs != "" {
		return
	}
	ci.differs = fmt.Sprintf("the store's %s index holds an entry of validator %s's log (key %x) ", e.Kind, ci.v, e.Key) + fmt.Sprintf(format, args...)
	if leaf, ok := e.Kind.LeafOf(e.Key); ok {
		ci.differsAt = append(ci.differsAt, leaf)
	}
	if e.LeafOK {
		ci.differsAt = append(ci.differsAt, e.Leaf)
	}
}

// found is the failure find reports at leaf, if any.
func (ci *ChainIndexes) found(find func(leaf uint64) (string, error), leaf uint64) (*Failure, error) {
	problem, err := find(leaf)
	if err != nil || problem == "" {
		return nil, err
	}
	return ci.fail("%s", problem), nil
}

func (ci *ChainIndexes) fail(format string, args ...any) *Failure {
	ci.failed = true
	return &Failure{Transcript: -1, Reason: storeDamage + fmt.Sprintf(format, args...)}
}

// settle ends the chain's tally, with head the chain's head in the view
// scanned. An entry that differs from its leaf's record is named by
// looking up the entries of that leaf's transcript (find), which says
// what is wrong with its own if anything is; entries the audited leaves
// lack are looked for the same way, one leaf at a time. Entries of leaves
// past the log fail it unless the chain grew since its audit began.
func (ci *ChainIndexes) settle(head cid.Cid, find func(leaf uint64) (string, error)) (*Failure, error) {
	if ci.failed {
		return nil, nil
	}
	// The leaves an entry that differs names first: their transcripts'
	// own entries say what is wrong, if that is where the damage is.
	for _, leaf := range ci.differsAt {
		if leaf < ci.start || leaf >= ci.end {
			continue
		}
		if f, err := ci.found(find, leaf); f != nil || err != nil {
			return f, err
		}
	}
	leaves := ci.end - ci.start
	if ci.matched[0] < leaves || ci.matched[1] < leaves || ci.matched[2] < ci.duels {
		for leaf := ci.start; leaf < ci.end; leaf++ {
			if f, err := ci.found(find, leaf); f != nil || err != nil {
				return f, err
			}
		}
	}
	if ci.differs != "" {
		return ci.fail("%s", ci.differs), nil
	}
	if ci.matched[0] < leaves || ci.matched[1] < leaves || ci.matched[2] < ci.duels {
		return ci.fail("the store's indexes of validator %s's log hold %d challenge, %d miner and %d duel entries of its %d transcripts from leaf %d (%d of a duel), yet every transcript's entries are found", ci.v, ci.matched[0], ci.matched[1], ci.matched[2], leaves, ci.start, ci.duels), nil
	}
	if ci.beyond != "" && head.Equals(ci.head) {
		return ci.fail("%s", ci.beyond), nil
	}
	// Entries below the audit's first leaf are not compared, but the log
	// implies a challenge and a miner entry for each of those leaves.
	for k, kind := range []ledger.IndexKind{ledger.ChallengeIndex, ledger.MinerIndex} {
		if head.Equals(ci.head) && ci.below[k] != ci.start {
			return ci.fail("the store's %s index holds %d entries of validator %s's log below leaf %d, where the audit began", kind, ci.below[k], ci.v, ci.start), nil
		}
	}
	return nil, nil
}

// auditIndexes is a store's indexes for one audit: the chains' records in
// a scratch directory, and what the scan found.
type auditIndexes struct {
	s      *ledger.Store
	scope  StoreScope
	dir    string
	owner  io.Closer
	chains map[keys.PublicKey]*ChainIndexes
	order  []*ChainIndexes
}

// newAuditIndexes keeps the records beside the challenge set's scratch
// store when it has one (under its directory, removed with it however the
// command ends: a command stopped by a signal removes that directory),
// else in a scratch directory of their own.
func newAuditIndexes(s *ledger.Store, scope StoreScope, set ChallengeSet) (*auditIndexes, error) {
	ai := &auditIndexes{s: s, scope: scope, chains: map[keys.PublicKey]*ChainIndexes{}}
	var err error
	if d, ok := set.(interface{ Dir() string }); ok && d.Dir() != "" {
		ai.dir, err = os.MkdirTemp(d.Dir(), "indexes-*")
	} else {
		ai.dir, ai.owner, err = makeScratch("")
	}
	if err != nil {
		return nil, fmt.Errorf("scratch directory for the index records: %w", err)
	}
	return ai, nil
}

// chain returns the recorder of v's chain, whose log has size transcripts
// before the first block audited.
func (ai *auditIndexes) chain(v keys.PublicKey, size uint64) (*ChainIndexes, error) {
	f, err := os.Create(filepath.Join(ai.dir, fmt.Sprintf("index-%d", len(ai.order))))
	if err != nil {
		return nil, fmt.Errorf("index records: %w", err)
	}
	ci := &ChainIndexes{v: v, file: f, w: bufio.NewWriterSize(f, 64<<10), start: size, end: size}
	ai.chains[v] = ci
	ai.order = append(ai.order, ci)
	return ci, nil
}

// finish scans the indexes and returns the store's failures they show.
func (ai *auditIndexes) finish() ([]Failure, error) {
	for _, ci := range ai.order {
		if ci.err == nil {
			if err := ci.w.Flush(); err != nil {
				ci.err = fmt.Errorf("write the index records: %w", err)
			}
		}
		if ci.err != nil {
			return nil, fmt.Errorf("validator %s: %w", ci.v, ci.err)
		}
	}
	var (
		out       []Failure
		malformed string
		noChain   = map[keys.PublicKey]*[3]uint64{}
	)
	heads, err := ai.s.ScanIndexes(ai.scope.Validator, func(e ledger.ScannedEntry) error {
		if e.Malformed {
			if malformed == "" {
				malformed = fmt.Sprintf("key %x in the %s index, which is no entry's", e.Key, e.Kind)
			}
			return nil
		}
		ci := ai.chains[e.Validator]
		if ci == nil {
			if noChain[e.Validator] == nil {
				noChain[e.Validator] = new([3]uint64)
			}
			noChain[e.Validator][slot(e.Kind)]++
			return nil
		}
		if !ci.ended || ci.failed {
			return nil
		}
		return ci.entry(e)
	})
	if err != nil {
		return nil, fmt.Errorf("scan the store's indexes: %w", err)
	}
	r, err := ai.s.NewIndexReader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	for _, ci := range ai.order {
		if !ci.ended {
			continue
		}
		f, err := ci.settle(heads[ci.v], func(leaf uint64) (string, error) { return ai.lookUp(r, ci.v, leaf) })
		if err != nil {
			return nil, err
		}
		if f != nil {
			out = append(out, *f)
		}
	}
	if malformed != "" {
		out = append(out, Failure{Transcript: -1, Reason: storeDamage + "the store holds " + malformed})
	}
	var strays []Failure
	for v, n := range noChain {
		if heads[v].Defined() {
			continue // a chain not audited (below --from) or stored since
		}
		strays = append(strays, Failure{Transcript: -1, Reason: fmt.Sprintf("%sthe store's indexes hold entries of validator %s (challenge %d, miner %d, duel %d), of which it has no chain", storeDamage, v, n[0], n[1], n[2])})
	}
	slices.SortFunc(strays, func(a, b Failure) int { return strings.Compare(a.Reason, b.Reason) })
	return append(out, strays...), nil
}

// lookUp checks the entries of v's transcript at leaf one by one, as the
// leaf table places it: what is wrong with the first that is missing or
// differs, "" if none is. The transcript is read by its CID, not through
// the challenge index, which may be what is damaged.
func (ai *auditIndexes) lookUp(r *ledger.IndexReader, v keys.PublicKey, leaf uint64) (string, error) {
	for ref, err := range ai.s.Leaves(v, leaf) {
		if err != nil {
			return "", err
		}
		raw, err := ai.s.Object(ref.CID)
		if err != nil {
			return "", err
		}
		t, err := record.DecodeTranscript(raw)
		if err != nil {
			return "", fmt.Errorf("transcript %s at leaf %d of %s: %w", ref.CID, leaf, v, err)
		}
		problem, err := r.Check(ledger.IndexedTranscript{Ref: ref, Miner: t.Miner.Hotkey, Challenge: t.Challenge, Duel: t.Duel})
		if problem != "" {
			problem += fmt.Sprintf(" (transcript %s, linked at height %d)", ref.CID, ref.Height)
		}
		return problem, err
	}
	return "", nil
}

// close removes the scratch directory.
func (ai *auditIndexes) close() error {
	var errs []error
	for _, ci := range ai.order {
		errs = append(errs, ci.file.Close())
	}
	if ai.owner != nil {
		errs = append(errs, ai.owner.Close())
	}
	errs = append(errs, rmtree.RemoveAll(ai.dir))
	return errors.Join(errs...)
}
