package verify_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/ipfs/go-cid"
	"github.com/transparency-dev/merkle/compact"

	"github.com/affine-ledger/ledger/archive"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// tamperSpec is the ledger the random tampering test mutates: a few chains
// of a few blocks, every env, a decision at height 1 (the same record in
// every chain, so one stored object linked three times).
var tamperSpec = verifytest.Spec{Validators: 3, Blocks: 3, PerBlock: 2, Decisions: true}

// tamperFixture is one built ledger, as a closed store directory and as
// its export, with everything a mutation needs to know where it landed.
type tamperFixture struct {
	// dir is the store as Build left it: the older blocks in tables, the
	// newer ones still in the write-ahead logs. File mutations start here.
	dir string
	// compacted is the same store compacted into one table, which the
	// value mutations start from: a store case then reads one table, not
	// three and the logs (a quarter less CPU per case under -race).
	compacted string
	// kv is every key and value of the store (the Pebble view after
	// replaying the logs).
	kv map[string][]byte
	// keyList is kv's keys, sorted, for seeded picks.
	keyList []string
	// files are the store's files that hold data: tables, logs, MANIFEST.
	files []string
	// lastLog is the newest write-ahead log, whose torn tail Pebble
	// tolerates as a crash would leave it.
	lastLog string
	// obsoleteLogs are older logs whose records are all in tables:
	// removing one changes nothing (Pebble keeps them to recycle).
	obsoleteLogs map[string]bool

	blocks []fixBlock // in verification order: chains by key, then height
	heads  map[keys.PublicKey]*fixBlock
	// linkedBy lists, for every object CID, the blocks linking it and at
	// which index (-1 for a decision), in verification order.
	linkedBy map[string][]objectUse
	// frontier holds the node and leaf keys the store reads when it opens
	// (the compact range of every head's log).
	frontier map[string]bool

	car     []byte
	carHead int // end of the CAR header
	secs    []carSec
}

type fixBlock struct {
	pos    int // in verification order
	v      keys.PublicKey
	height uint64
	cid    cid.Cid
	raw    []byte
	blk    *record.Block
}

type objectUse struct {
	blk   *fixBlock
	index int // transcript index, -1 for a decision
}

// carSec is one section of the fixture's export.
type carSec struct {
	index           int
	off, data, end  int // its varint, its data (after the CID), its end
	cid             cid.Cid
	blk             *fixBlock // the block it is or belongs to
	transcript      int       // its index if a transcript, else -1
	decision, block bool
}

func (s carSec) where() string { return fmt.Sprintf("section %d at byte %d", s.index, s.off) }

func newTamperFixture(t testing.TB) *tamperFixture {
	t.Helper()
	dir, ks := buildAt(t, tamperSpec)
	fx := &tamperFixture{dir: dir, heads: map[keys.PublicKey]*fixBlock{}, linkedBy: map[string][]objectUse{}, frontier: map[string]bool{}}
	fx.listFiles(t)
	fx.readKV(t)
	fx.findObsoleteLogs(t)
	fx.compacted = compactedCopy(t, dir)
	if kv, err := rawKV(copyStore(t, fx.compacted)); err != nil || !maps.EqualFunc(kv, fx.kv, bytes.Equal) {
		t.Fatalf("compacting the store changed it (%v)", err)
	}

	s, err := verify.OpenStore(copyStore(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	vs := make([]keys.PublicKey, len(ks))
	for i, k := range ks {
		vs[i] = k.Public()
	}
	slices.SortFunc(vs, func(a, b keys.PublicKey) int { return bytes.Compare(a[:], b[:]) })
	for _, v := range vs {
		for b, err := range s.Blocks(v, 0) {
			if err != nil {
				t.Fatal(err)
			}
			fx.blocks = append(fx.blocks, fixBlock{pos: len(fx.blocks), v: v, height: b.Height, cid: b.CID, raw: b.Raw, blk: b.Block})
		}
	}
	for i := range fx.blocks {
		b := &fx.blocks[i]
		fx.heads[b.v] = b // the last one wins
		for j, l := range b.blk.Transcripts {
			fx.linkedBy[l.Cid.String()] = append(fx.linkedBy[l.Cid.String()], objectUse{b, j})
		}
		for _, l := range b.blk.Decisions {
			fx.linkedBy[l.Cid.String()] = append(fx.linkedBy[l.Cid.String()], objectUse{b, -1})
		}
	}
	for v, h := range fx.heads {
		for _, id := range compact.RangeNodes(0, h.blk.Checkpoint.Size, nil) {
			if id.Level == 0 {
				fx.frontier[string(leafKey(v, id.Index))] = true
			} else {
				fx.frontier[string(nodeKey(v, id.Level, id.Index))] = true
			}
		}
	}
	var buf bytes.Buffer
	if _, err := archive.Export(s, &buf); err != nil {
		t.Fatal(err)
	}
	fx.car = buf.Bytes()
	fx.parseCAR(t)
	if rep := verifyTampered(copyStore(t, fx.dir)); !rep.ok() {
		t.Fatalf("the fixture store does not verify: %v", rep)
	}
	if rep := verifyCARBytes(fx.car); !rep.ok() {
		t.Fatalf("the fixture archive does not verify: %v", rep)
	}
	return fx
}

// buildAt is build with a clock of its own: block times, and so the
// export's layout and the store's files, are the same on every run (the
// signatures still differ: sr25519 signing is randomized), so a seed
// replays a case.
func buildAt(t testing.TB, spec verifytest.Spec) (string, []*keys.Hotkey) {
	t.Helper()
	dir := t.TempDir()
	var tick atomic.Int64
	s, err := ledger.Open(dir, ledger.WithClock(func() time.Time { return time.UnixMilli(1_700_000_000_000 + tick.Add(1000)) }), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	ks, err := verifytest.Build(s, spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, ks
}

func (fx *tamperFixture) listFiles(t testing.TB) {
	t.Helper()
	ents, err := os.ReadDir(fx.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		n := e.Name()
		if strings.HasSuffix(n, ".sst") || strings.HasSuffix(n, ".log") || strings.HasPrefix(n, "MANIFEST-") {
			fx.files = append(fx.files, n)
		}
		if strings.HasSuffix(n, ".log") && n > fx.lastLog {
			fx.lastLog = n // zero-padded numbers sort as strings
		}
	}
	count := func(match func(string) bool) int {
		return len(slices.DeleteFunc(slices.Clone(fx.files), func(n string) bool { return !match(n) }))
	}
	// One MANIFEST, the current one: a previous one that Pebble keeps
	// would be a file nothing reads.
	if fx.lastLog == "" || count(func(n string) bool { return strings.HasSuffix(n, ".sst") }) == 0 ||
		count(func(n string) bool { return strings.HasPrefix(n, "MANIFEST-") }) != 1 {
		t.Fatalf("the fixture store has files %v, the test wants tables, logs and one MANIFEST", fx.files)
	}
}

func compactedCopy(t testing.TB, dir string) string {
	t.Helper()
	dst := copyStore(t, dir)
	db, err := pebble.Open(dst, &pebble.Options{Logger: silent{}, ErrorIfNotExists: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Compact(context.Background(), []byte{0}, bytes.Repeat([]byte{0xff}, 64), false); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

func (fx *tamperFixture) findObsoleteLogs(t testing.TB) {
	t.Helper()
	fx.obsoleteLogs = map[string]bool{}
	for _, name := range fx.files {
		if !strings.HasSuffix(name, ".log") || name == fx.lastLog {
			continue
		}
		dir := copyStore(t, fx.dir)
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		if kv, err := rawKV(dir); err == nil && maps.EqualFunc(kv, fx.kv, bytes.Equal) {
			fx.obsoleteLogs[name] = true
		}
	}
}

// readKV reads every key of (a copy of) the store through Pebble directly.
func (fx *tamperFixture) readKV(t testing.TB) {
	t.Helper()
	kv, err := rawKV(copyStore(t, fx.dir))
	if err != nil {
		t.Fatal(err)
	}
	fx.kv = kv
	for k := range kv {
		fx.keyList = append(fx.keyList, k)
	}
	slices.Sort(fx.keyList)
}

// rawKV reads every key and value of the closed store at dir, or the
// first error Pebble reports.
func rawKV(dir string) (map[string][]byte, error) {
	db, err := pebble.Open(dir, &pebble.Options{Logger: silent{}, ErrorIfNotExists: true})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	it, err := db.NewIter(nil)
	if err != nil {
		return nil, err
	}
	kv := map[string][]byte{}
	for it.First(); it.Valid(); it.Next() {
		kv[string(it.Key())] = slices.Clone(it.Value())
	}
	if err := it.Error(); err != nil {
		it.Close()
		return nil, err
	}
	return kv, it.Close()
}

// parseCAR splits the export by hand (not with the archive package, whose
// reader is under test) and names every section's block.
func (fx *tamperFixture) parseCAR(t testing.TB) {
	t.Helper()
	n, k := binary.Uvarint(fx.car)
	fx.carHead = k + int(n)
	var cur *fixBlock
	next := 0 // index into fx.blocks
	objs := 0 // objects of cur seen
	for off := fx.carHead; off < len(fx.car); {
		n, k := binary.Uvarint(fx.car[off:])
		cl, c, err := cid.CidFromBytes(fx.car[off+k:])
		if err != nil {
			t.Fatal(err)
		}
		s := carSec{index: len(fx.secs), off: off, data: off + k + cl, end: off + k + int(n), cid: c, transcript: -1}
		if next < len(fx.blocks) && c.Equals(fx.blocks[next].cid) && (cur == nil || objs == len(cur.blk.Transcripts)+len(cur.blk.Decisions)) {
			cur, objs = &fx.blocks[next], 0
			next++
			s.block = true
		} else {
			if objs < len(cur.blk.Transcripts) {
				s.transcript = objs
			} else {
				s.decision = true
			}
			objs++
		}
		s.blk = cur
		fx.secs = append(fx.secs, s)
		off = s.end
	}
	if next != len(fx.blocks) {
		t.Fatalf("the export holds %d of %d blocks", next, len(fx.blocks))
	}
}

// section returns the section holding byte off of the export, nil for the
// header.
func (fx *tamperFixture) section(off int) *carSec {
	i, found := slices.BinarySearchFunc(fx.secs, off, func(s carSec, off int) int { return s.off - off })
	if !found {
		i--
	}
	if i < 0 {
		return nil
	}
	return &fx.secs[i]
}

// Store keys (spec/store.md) the ledgertest helpers do not export.
func leafKey(v keys.PublicKey, i uint64) []byte {
	return binary.BigEndian.AppendUint64(append([]byte{'l'}, v[:]...), i)
}

func nodeKey(v keys.PublicKey, level uint, i uint64) []byte {
	return binary.BigEndian.AppendUint64(append([]byte{'n'}, append(v[:], byte(level))...), i)
}

// silent is a Pebble logger for the test's own raw opens: what matters is
// the error Pebble returns.
type silent struct{}

func (silent) Infof(string, ...any)           {}
func (silent) Errorf(string, ...any)          {}
func (silent) Fatalf(format string, a ...any) { panic(fmt.Sprintf(format, a...)) }

// copyTo copies the closed store at src into a new directory under root.
func copyTo(root, src string) (string, error) {
	dst, err := os.MkdirTemp(root, "store")
	if err != nil {
		return "", err
	}
	return dst, os.CopyFS(dst, os.DirFS(src))
}
