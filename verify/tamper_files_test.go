package verify_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ipfs/go-cid"
)

// Mutations of the Pebble files themselves: the store must refuse to
// open, or verify must fail. A pass is accepted only in the no-op classes,
// which classifyPass establishes from the store's content afterwards.
var fileKinds = []tamperKind{
	{"file/flip-table", 5, fileFlip(".sst")},
	{"file/flip-log", 5, fileFlip(".log")},
	{"file/flip-manifest", 3, fileFlip("MANIFEST-")},
	{"file/truncate", 5, fileTruncate},
}

func (c *tamperCase) pickFile(match string) string {
	var fs []string
	for _, f := range c.fx.files {
		if strings.Contains(f, match) {
			fs = append(fs, f)
		}
	}
	return fs[c.r.IntN(len(fs))]
}

func fileFlip(match string) func(*tamperCase) (string, error) {
	return func(c *tamperCase) (string, error) {
		name := c.pickFile(match)
		dir := c.copyStore()
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if err != nil {
			panic(err)
		}
		data, bits := c.flipValue(data, 0)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			panic(err)
		}
		c.describe("%s bits %v of %d bytes", name, bits, len(data))
		d := fileDamage{name: name, size: len(data), from: slices.Min(bits) / 8, trailer: slices.Max(bits)/8 >= len(data)-trailerBytes}
		return c.fx.expectFile(c.verifyStore(dir), dir, d)
	}
}

func fileTruncate(c *tamperCase) (string, error) {
	name := c.pickFile("")
	dir := c.copyStore()
	path := filepath.Join(dir, name)
	st, err := os.Stat(path)
	if err != nil {
		panic(err)
	}
	n := c.r.Int64N(st.Size())
	if err := os.Truncate(path, n); err != nil {
		panic(err)
	}
	c.describe("%s cut at byte %d of %d", name, n, st.Size())
	return c.fx.expectFile(c.verifyStore(dir), dir, fileDamage{name: name, size: int(st.Size()), from: int(n), cut: true})
}

// fileDamage is what a file mutation did: bytes from offset from on
// changed (flipped, or cut off), the last trailerBytes among them or not.
type fileDamage struct {
	name         string
	size, from   int
	cut, trailer bool
}

// trailerBytes is the size of the end-of-file trailer Pebble closes a log
// with: a chunk header without payload.
const trailerBytes = 11

// expectFile judges damage to a file of the store at dir: refused or
// failed naming the file, or a pass that classifyPass accounts for.
func (fx *tamperFixture) expectFile(v verdict, dir string, d fileDamage) (string, error) {
	if !v.ok() {
		return expectText(v, fileTexts(d.name)...)
	}
	return fx.classifyPass(dir, d)
}

// fileTexts are the ways a failure can name damage in file name: the
// file itself (Pebble names tables and logs by number).
func fileTexts(name string) []string {
	num := strings.TrimLeft(strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(name, "MANIFEST-"), ".sst"), ".log"), "0")
	return []string{name, num}
}

// classifyPass accounts for a store that verifies although one of its
// files was damaged, from where the damage is and what the store holds
// afterwards (every key and value, read through Pebble), or fails. The
// three no-op cases:
//
//   - an obsolete log: its records are in a table (the fixture checks that
//     removing it changes nothing); Pebble never replays it and deletes
//     or recycles it;
//   - the newest log's end-of-file trailer flipped: a chunk header with no
//     payload; every record still reads, and only the trailer is lost;
//   - the newest log cut, or damaged in its trailer as well as before
//     it: exactly what a crash leaves, which neither Pebble nor the audit
//     can tell from one (the trailer is the only sign of a clean close),
//     and the store reopens at an earlier state of the same chains (the
//     blocks from the damage on are gone, nothing else changed). Only a
//     reference from outside the store (the chain commitments of `verify
//     --chain`, an export's roots) can show that blocks are missing.
func (fx *tamperFixture) classifyPass(dir string, d fileDamage) (string, error) {
	kv, err := rawKV(dir)
	if err != nil {
		return "missed", fmt.Errorf("verify passed, yet reading every key fails: %v", err)
	}
	var changed, missing, extra []string
	for k, val := range fx.kv {
		got, ok := kv[k]
		switch {
		case !ok:
			missing = append(missing, k)
		case !bytes.Equal(got, val):
			changed = append(changed, k)
		}
	}
	for k := range kv {
		if _, ok := fx.kv[k]; !ok {
			extra = append(extra, k)
		}
	}
	unchanged := len(changed)+len(missing)+len(extra) == 0
	switch {
	case fx.obsoleteLogs[d.name] && unchanged:
		return classObsoleteLog, nil
	case d.name == fx.lastLog && d.from >= d.size-trailerBytes && unchanged:
		return classTrailer, nil
	case d.name == fx.lastLog && d.cut && len(extra) == 0 && fx.headsMovedBack(kv, changed):
		return classRolledBack, nil
	case d.name == fx.lastLog && d.trailer && len(extra) == 0 && fx.headsMovedBack(kv, changed):
		return classNoTrailer, nil
	}
	slices.Sort(changed)
	slices.Sort(missing)
	slices.Sort(extra)
	return "missed", fmt.Errorf("verify passed; keys changed %x, missing %x, extra %x", changed, missing, extra)
}

// headsMovedBack: every changed key is a head pointer that now names a
// lower block of the same chain. With nothing else changed or added and
// a store that opens and verifies, that is an earlier state of the same
// chains.
func (fx *tamperFixture) headsMovedBack(kv map[string][]byte, changed []string) bool {
	for _, k := range changed {
		if k[0] != 'h' {
			return false
		}
		c, err := cid.Cast(kv[k])
		if err != nil {
			return false
		}
		blk := fx.block(c)
		if blk == nil || string(blk.v[:]) != k[1:] || blk == fx.heads[blk.v] {
			return false
		}
	}
	return true
}
