package verify_test

import (
	"bytes"
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/verify"
)

// The random tampering test mutates one built ledger in many random ways
// (its export, its stored values, its Pebble files) and requires verify to
// notice every mutation and to name where it is. Environment:
//
//	LEDGER_TAMPER_CASES  number of cases (default 1000)
//	LEDGER_TAMPER_SEED   seed to replay (default: random, printed)
//	LEDGER_TAMPER_CASE   run only this case of the seed
//	LEDGER_TAMPER_KINDS  only the kinds with these comma-separated name
//	                     prefixes (car/, store/, file/flip-log, ...)
//
// Each case draws from its own PCG stream (seed, case), so a case replays
// alone and the order the workers take cases in does not matter.

// tamperKind is one kind of mutation. run applies it to a fresh copy,
// runs verify and judges the verdict: it returns the outcome's class for
// the tally, or an error if verify missed the mutation or misplaced it.
type tamperKind struct {
	name   string
	weight int
	run    func(c *tamperCase) (class string, err error)
}

// Outcome classes. A mutation verify does not report must be one of the
// no-op classes, each checked precisely where it is assigned.
const (
	classFailed  = "failed"  // the report fails, naming the place
	classRefused = "refused" // the input cannot be opened or read at all
	// classRootsUnread: the export's header and later framing both
	// damaged; the report names the later damage, and the reader stops
	// there, before the chains the damaged roots name.
	classRootsUnread = "failed, damaged roots of unread chains"
	// File damage that changes nothing or that a crash would leave (see
	// classifyPass).
	classObsoleteLog = "no-op: obsolete log"
	classTrailer     = "no-op: newest log's end-of-file trailer"
	classRolledBack  = "torn tail: rolled back to an earlier state"
	classNoTrailer   = "trailer damaged too, as a torn tail: rolled back"
)

var tamperKinds = slices.Concat(carKinds, storeKinds, fileKinds)

// tamperCase is one case: its random stream, the fixture, a scratch
// directory, and what it did (for messages).
type tamperCase struct {
	n    int
	r    *rand.Rand
	fx   *tamperFixture
	tmp  string
	what string
	said string // what verify said, for the examples in the log
}

func (c *tamperCase) verifyStore(dir string) verdict {
	v := verifyTampered(dir)
	c.said = v.first()
	return v
}

func (c *tamperCase) verifyCAR(car []byte) verdict {
	v := verifyCARBytes(car)
	c.said = v.first()
	return v
}

func (c *tamperCase) describe(format string, args ...any) {
	c.what = fmt.Sprintf(format, args...)
}

func TestTamperRandom(t *testing.T) {
	t.Parallel()
	cases := envInt(t, "LEDGER_TAMPER_CASES", 1000)
	seed := uint64(envInt(t, "LEDGER_TAMPER_SEED", -1))
	if os.Getenv("LEDGER_TAMPER_SEED") == "" {
		var b [8]byte
		_, _ = crand.Read(b[:])
		seed = binary.LittleEndian.Uint64(b[:]) >> 1 // fits an int for the env var
	}
	first, last := 0, cases
	if only := envInt(t, "LEDGER_TAMPER_CASE", -1); only >= 0 {
		first, last = only, only+1
	}
	// On stderr too: a panic in one of verify's goroutines ends the
	// process before the test's log is printed.
	fmt.Fprintf(os.Stderr, "TestTamperRandom: seed %d (replay with LEDGER_TAMPER_SEED=%d LEDGER_TAMPER_CASES=%d)\n", seed, seed, cases)
	t.Logf("seed %d, cases %d..%d", seed, first, last-1)

	kinds := tamperKinds
	if only := os.Getenv("LEDGER_TAMPER_KINDS"); only != "" {
		kinds = slices.DeleteFunc(slices.Clone(kinds), func(k tamperKind) bool {
			return !slices.ContainsFunc(strings.Split(only, ","), func(p string) bool { return strings.HasPrefix(k.name, p) })
		})
		if len(kinds) == 0 {
			t.Fatalf("LEDGER_TAMPER_KINDS=%q matches no kind", only)
		}
	}
	fx := newTamperFixture(t)
	total := 0
	for _, k := range kinds {
		total += k.weight
	}
	root := t.TempDir()
	var (
		mu    sync.Mutex
		tally = map[string]map[string]int{}
		spent = map[string]time.Duration{}
		// examples holds, per kind and class, what verify said the first
		// time (logged with -v).
		examples = map[string]string{}
		errs     []string
		next     atomic.Int64
		wg       sync.WaitGroup
		failed   atomic.Int64
	)
	next.Store(int64(first))
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n := int(next.Add(1) - 1)
				if n >= last || failed.Load() >= 20 {
					return
				}
				c := &tamperCase{n: n, r: rand.New(rand.NewPCG(seed, uint64(n))), fx: fx}
				kind := pickKind(c.r, kinds, total)
				start := time.Now()
				class, err := runCase(c, kind, root)
				mu.Lock()
				spent[kind.name] += time.Since(start)
				if tally[kind.name] == nil {
					tally[kind.name] = map[string]int{}
				}
				if _, ok := examples[kind.name+class]; !ok && err == nil {
					examples[kind.name+class] = fmt.Sprintf("%s, %s (%s): %s", kind.name, class, c.what, c.said)
				}
				tally[kind.name][class]++
				if err != nil {
					failed.Add(1)
					errs = append(errs, fmt.Sprintf("case %d %s (%s): %v", n, kind.name, c.what, err))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	logTally(t, tally, spent)
	if testing.Verbose() {
		for _, k := range slices.Sorted(maps.Keys(examples)) {
			t.Logf("example: %s", examples[k])
		}
	}
	slices.Sort(errs)
	for _, e := range errs {
		t.Error(e)
	}
	if len(errs) > 0 {
		t.Logf("replay one case: LEDGER_TAMPER_SEED=%d LEDGER_TAMPER_CASE=<n> go test -run TestTamperRandom ./verify/", seed)
	}
}

func pickKind(r *rand.Rand, kinds []tamperKind, total int) tamperKind {
	x := r.IntN(total)
	for _, k := range kinds {
		if x < k.weight {
			return k
		}
		x -= k.weight
	}
	panic("unreachable")
}

// runCase runs one case in its own scratch directory; a panic in the
// case's goroutine (the code under test's, or the test's) is its error.
func runCase(c *tamperCase, k tamperKind, root string) (class string, err error) {
	tmp, err := os.MkdirTemp(root, "case")
	if err != nil {
		return "setup", err
	}
	defer os.RemoveAll(tmp)
	c.tmp = tmp
	defer func() {
		if p := recover(); p != nil {
			class, err = "panic", fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return k.run(c)
}

func logTally(t *testing.T, tally map[string]map[string]int, spent map[string]time.Duration) {
	var b strings.Builder
	for _, k := range tamperKinds {
		classes := tally[k.name]
		if len(classes) == 0 {
			continue
		}
		var names []string
		n := 0
		for cl, m := range classes {
			names = append(names, cl)
			n += m
		}
		slices.Sort(names)
		fmt.Fprintf(&b, "\n  %-26s %4d (%3d ms each):", k.name, n, (spent[k.name] / time.Duration(n)).Milliseconds())
		for _, cl := range names {
			fmt.Fprintf(&b, " %s %d;", cl, classes[cl])
		}
	}
	t.Logf("outcomes by mutation kind:%s", b.String())
}

func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a non-negative integer", name, s)
	}
	return n
}

// verdict is what verify made of a tampered input.
type verdict struct {
	// refused is the error of an input that cannot be read at all: a
	// store that fails to open, an archive that is not a CARv1.
	refused error
	rep     verify.Report
}

func (v verdict) ok() bool { return v.refused == nil && v.rep.OK }

// first is the refusal or the first failure, as a user reads it.
func (v verdict) first() string {
	switch {
	case v.refused != nil:
		return v.refused.Error()
	case len(v.rep.Failures) > 0:
		return v.rep.Failures[0].String()
	}
	return "ok"
}

func (v verdict) String() string {
	if v.refused != nil || len(v.rep.Failures) <= 1 {
		return v.first()
	}
	var s []string
	for _, f := range v.rep.Failures {
		s = append(s, f.String())
	}
	return strings.Join(s, "; ")
}

// tamperOptions: no re-execution. Every mutation here changes bytes a
// hash or the framing covers, which the integrity steps (B1, T1, D1)
// catch before T6 would run; TestLyingValidator covers re-execution.
func tamperOptions() verify.Options {
	return verify.Options{Challenges: verify.NewMemSet()}
}

// verifyTampered audits the store at dir as an audit of a store
// directory goes: CheckFiles, OpenStore (a store that fails either is
// refused), then every chain.
func verifyTampered(dir string) verdict {
	if _, err := verify.CheckFiles(dir); err != nil {
		return verdict{refused: err}
	}
	s, err := verify.OpenStore(dir)
	if err != nil {
		return verdict{refused: err}
	}
	defer s.Close()
	heads, err := verify.StoreHeads(s, verify.StoreScope{})
	if err != nil {
		return verdict{refused: err}
	}
	rep, err := verify.VerifyStore(s, heads, verify.StoreScope{}, tamperOptions())
	mustBeWellFormed(rep)
	return verdict{refused: err, rep: rep}
}

func verifyCARBytes(car []byte) verdict {
	rep, err := verify.VerifyCAR(bytes.NewReader(car), tamperOptions())
	mustBeWellFormed(rep)
	return verdict{refused: err, rep: rep}
}

// mustBeWellFormed panics (which fails the case that made rep, runCase)
// unless rep is wellFormed.
func mustBeWellFormed(rep verify.Report) {
	if err := wellFormed(rep); err != nil {
		panic(err)
	}
}

// expectAnyText is expectText for any failure, not only the first.
func expectAnyText(v verdict, texts ...string) (string, error) {
	if v.refused != nil || v.ok() {
		return expectText(v, texts...)
	}
	for _, f := range v.rep.Failures {
		for _, s := range texts {
			if strings.Contains(f.String(), s) {
				return classFailed, nil
			}
		}
	}
	return classFailed, fmt.Errorf("no failure names any of %q: %v", texts, v)
}

// spot is where a failure must be.
type spot struct {
	validator  string
	height     uint64
	cid        string // "" to not check
	transcript int
}

func (s spot) String() string {
	return fmt.Sprintf("validator %s height %d block %s transcript %d", s.validator, s.height, s.cid, s.transcript)
}

// expectAt requires the first failure at s.
func expectAt(v verdict, s spot) (string, error) {
	if v.ok() {
		return "ok", fmt.Errorf("verify passed")
	}
	if v.refused != nil {
		return classRefused, fmt.Errorf("refused (%v), want a failure at %v", v.refused, s)
	}
	f := v.rep.Failures[0]
	// A block whose bytes the store cannot give may be named by its
	// CID in the reason only.
	namesCID := s.cid == "" || f.CID == s.cid || f.CID == "" && strings.Contains(f.Reason, s.cid)
	if f.Validator != s.validator || f.Height != s.height || f.Transcript != s.transcript || !namesCID {
		return classFailed, fmt.Errorf("first failure %q, want it at %v", f, s)
	}
	return classFailed, nil
}

// expectText requires the refusal or first failure to contain one of
// texts, each naming the place of the mutation.
func expectText(v verdict, texts ...string) (string, error) {
	if v.ok() {
		return "ok", fmt.Errorf("verify passed")
	}
	class := classFailed
	if v.refused != nil {
		class = classRefused
	}
	first := v.first()
	for _, s := range texts {
		if strings.Contains(first, s) {
			return class, nil
		}
	}
	return class, fmt.Errorf("%q names none of %q", first, texts)
}
