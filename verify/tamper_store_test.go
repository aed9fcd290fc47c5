package verify_test

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
)

// Mutations of stored values, written behind the store's back with the
// raw Pebble writer of ledgertest, in a copy of the fixture store.
var storeKinds = []tamperKind{
	{"store/flip-object", 4, storeFlipObject},
	{"store/delete-object", 1, storeDeleteObject},
	{"store/swap-objects", 2, storeSwapObjects},
	{"store/flip-head", 1, storeFlipKey(isTable('h'))},
	{"store/delete-head", 1, storeDeleteKey(isTable('h'))},
	{"store/flip-height-index", 2, storeFlipKey(isTable('b'))},
	{"store/delete-height-index", 1, storeDeleteKey(isTable('b'))},
	{"store/flip-frontier", 1, storeFlipKey(func(fx *tamperFixture, k string) bool { return fx.frontier[k] })},
	{"store/flip-meta", 1, storeFlipKey(func(_ *tamperFixture, k string) bool { return k[0] == 0 })},
	{"store/flip-node", 1, storeFlipNode},
	{"store/flip-leaf", 1, storeFlipLeaf},
	{"store/flip-index", 2, storeFlipIndex},
	{"store/delete-index", 1, storeDeleteIndex},
	{"store/add-index", 1, storeAddIndex},
}

func isTable(t byte) func(*tamperFixture, string) bool {
	return func(_ *tamperFixture, k string) bool { return k[0] == t }
}

// pickKey draws one of the fixture's keys that match.
func (c *tamperCase) pickKey(match func(*tamperFixture, string) bool) string {
	var ks []string
	for _, k := range c.fx.keyList {
		if match(c.fx, k) {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		panic("no key matches")
	}
	return ks[c.r.IntN(len(ks))]
}

// flipValue returns value with 1 to 8 distinct random bits flipped, only
// in bytes [from, len), and the bits (counted from the value's start).
func (c *tamperCase) flipValue(value []byte, from int) ([]byte, []int) {
	out := slices.Clone(value)
	n := (len(value) - from) * 8
	var bits []int
	for want := min(n, 1+c.r.IntN(8)); len(bits) < want; {
		if b := from*8 + c.r.IntN(n); !slices.Contains(bits, b) {
			bits = append(bits, b)
			out[b/8] ^= 1 << (b % 8)
		}
	}
	return out, bits
}

// copyStore copies the fixture store as built into the case's scratch
// directory.
func (c *tamperCase) copyStore() string { return c.copyDir(c.fx.dir) }

// copyCompacted copies the compacted fixture store.
func (c *tamperCase) copyCompacted() string { return c.copyDir(c.fx.compacted) }

func (c *tamperCase) copyDir(src string) string {
	dir, err := copyTo(c.tmp, src)
	if err != nil {
		panic(err)
	}
	return dir
}

func (c *tamperCase) set(dir, key string, value []byte) {
	if err := ledgertest.Set(dir, []byte(key), value); err != nil {
		panic(err)
	}
}

func storeFlipObject(c *tamperCase) (string, error) {
	key := c.pickKey(isTable('o'))
	dir := c.copyCompacted()
	value, bits := c.flipValue(c.fx.kv[key], 0)
	c.set(dir, key, value)
	c.describe("object %s bits %v", keyCID(key), bits)
	return c.fx.expectObject(c.verifyStore(dir), keyCID(key))
}

func storeDeleteObject(c *tamperCase) (string, error) {
	key := c.pickKey(isTable('o'))
	dir := c.copyCompacted()
	if err := ledgertest.Delete(dir, []byte(key)); err != nil {
		panic(err)
	}
	c.describe("object %s deleted", keyCID(key))
	return c.fx.expectObject(c.verifyStore(dir), keyCID(key))
}

// storeSwapObjects swaps the values of two blocks or of two transcripts:
// the one verify reaches first must fail.
func storeSwapObjects(c *tamperCase) (string, error) {
	fx := c.fx
	var a, b cid.Cid
	if c.r.IntN(2) == 0 {
		p := c.r.Perm(len(fx.blocks))
		a, b = fx.blocks[p[0]].cid, fx.blocks[p[1]].cid
	} else {
		var ts []cid.Cid
		for _, blk := range fx.blocks {
			ts = append(ts, blk.blk.TranscriptCIDs()...)
		}
		p := c.r.Perm(len(ts))
		a, b = ts[p[0]], ts[p[1]]
	}
	ka, kb := string(ledgertest.ObjectKey(a)), string(ledgertest.ObjectKey(b))
	dir := c.copyCompacted()
	c.set(dir, ka, fx.kv[kb])
	c.set(dir, kb, fx.kv[ka])
	c.describe("objects %s and %s swapped", a, b)
	v := c.verifyStore(dir)
	// A head block is checked when the store opens, before any chain.
	var heads []string
	for _, x := range []cid.Cid{a, b} {
		if blk := fx.block(x); blk != nil && fx.heads[blk.v] == blk {
			heads = append(heads, blk.v.String())
		}
	}
	if len(heads) > 0 {
		return expectRefused(v, heads...)
	}
	first := a
	if oa, ob := fx.order(a), fx.order(b); ob[0] < oa[0] || ob[0] == oa[0] && ob[1] < oa[1] {
		first = b
	}
	return fx.expectObject(v, first)
}

// storeFlipKey flips bits in the value of a key that match picks; the
// store's open check (heads, height index at the head, frontier, layout
// version) or the chain walk must name it.
func storeFlipKey(match func(*tamperFixture, string) bool) func(*tamperCase) (string, error) {
	return func(c *tamperCase) (string, error) {
		key := c.pickKey(match)
		from := 0
		if key[0] == 'l' {
			from = 16 // a leaf's index and height are not read at open; its CID is
		}
		dir := c.copyCompacted()
		value, bits := c.flipValue(c.fx.kv[key], from)
		c.set(dir, key, value)
		c.describe("key %x bits %v", key, bits)
		return c.fx.expectKey(c.verifyStore(dir), key)
	}
}

func storeDeleteKey(match func(*tamperFixture, string) bool) func(*tamperCase) (string, error) {
	return func(c *tamperCase) (string, error) {
		key := c.pickKey(match)
		dir := c.copyCompacted()
		if err := ledgertest.Delete(dir, []byte(key)); err != nil {
			panic(err)
		}
		c.describe("key %x deleted", key)
		return c.fx.expectKey(c.verifyStore(dir), key)
	}
}

// storeFlipNode flips bits in a stored Merkle node off the heads'
// frontiers, which the store's open does not read: the audit holds every
// stored node to the log it recomputes (B9), and reports the damage as
// the store's, naming the node, with the chains' blocks all checked.
func storeFlipNode(c *tamperCase) (string, error) {
	return storeFlipProofData(c, 'n', 0, func(key string) string {
		level, index := uint(key[33]), binary.BigEndian.Uint64([]byte(key[34:]))
		return fmt.Sprintf("store damage: the store's Merkle node at level %d index %d of validator ", level, index)
	})
}

// storeFlipLeaf flips bits in a leaf table entry off the heads' frontiers:
// proofs take the leaf hash from its CID, and a miner's view its place,
// so the audit holds it to the transcript the block links there (B9) as it
// does a node.
func storeFlipLeaf(c *tamperCase) (string, error) {
	return storeFlipProofData(c, 'l', 0, func(key string) string {
		return fmt.Sprintf("store damage: the store's leaf %d of validator ", binary.BigEndian.Uint64([]byte(key[33:])))
	})
}

// storeFlipProofData flips bits, from byte from of its value, in a key of
// table off the heads' frontiers, and wants the store's damage alone,
// named as want says for that key.
func storeFlipProofData(c *tamperCase, table byte, from int, want func(key string) string) (string, error) {
	key := c.pickKey(func(fx *tamperFixture, k string) bool { return k[0] == table && !fx.frontier[k] })
	dir := c.copyCompacted()
	value, bits := c.flipValue(c.fx.kv[key], from)
	c.set(dir, key, value)
	c.describe("key %x bits %v", key, bits)
	v := c.verifyStore(dir)
	class, err := expectText(v, want(key))
	if err == nil && (len(v.rep.Failures) != 1 || v.rep.Failures[0].Validator != "") {
		return class, fmt.Errorf("failures %v, want the store's damage only", v)
	}
	return class, err
}

// isIndex matches the keys of the transcript indexes.
func isIndex(_ *tamperFixture, k string) bool { return strings.IndexByte("cmd", k[0]) >= 0 }

// indexEntry names the entry of an index key as a failure does, and the
// validator whose log it indexes.
func indexEntry(key string) (string, keys.PublicKey) {
	var v keys.PublicKey
	switch key[0] {
	case 'c':
		copy(v[:], key[len(key)-32:])
		return "challenge index's entry for challenge ", v
	case 'm':
		copy(v[:], key[33:65])
		return "miner index's entry for miner ", v
	default:
		copy(v[:], key[33:65])
		return "duel index's entry for duel ", v
	}
}

// storeFlipIndex flips bits in an entry of a transcript index: the audit
// looks up every transcript's entries (B10) and reports the store's
// damage, naming the entry and the validator, with every chain checked.
func storeFlipIndex(c *tamperCase) (string, error) {
	key := c.pickKey(isIndex)
	dir := c.copyCompacted()
	value, bits := c.flipValue(c.fx.kv[key], 0)
	c.set(dir, key, value)
	c.describe("index key %x bits %v", key, bits)
	entry, v := indexEntry(key)
	return expectStoreDamage(c.verifyStore(dir), "store damage: the store's "+entry, "in validator "+v.String()+"'s log")
}

// storeDeleteIndex deletes an entry of a transcript index.
func storeDeleteIndex(c *tamperCase) (string, error) {
	key := c.pickKey(isIndex)
	dir := c.copyCompacted()
	if err := ledgertest.Delete(dir, []byte(key)); err != nil {
		panic(err)
	}
	c.describe("index key %x deleted", key)
	entry, v := indexEntry(key)
	return expectStoreDamage(c.verifyStore(dir), "store damage: the store has no "+entry, "in validator "+v.String()+"'s log")
}

// storeAddIndex adds an entry to a transcript index, a copy of one with
// another key: an entry no transcript has, which the audit finds as it
// compares every entry with the transcript at the leaf it names.
func storeAddIndex(c *tamperCase) (string, error) {
	key := c.pickKey(isIndex)
	moved := []byte(key)
	switch key[0] {
	case 'c':
		moved[len(moved)-33] ^= 1 << c.r.IntN(8) // the challenge's seed: another challenge
	default:
		moved[65] ^= 1 << c.r.IntN(8) // the leaf: another place in the log
	}
	if _, ok := c.fx.kv[string(moved)]; ok {
		return "unexpected key", fmt.Errorf("moved key %x exists: the copy would be no new entry", moved)
	}
	dir := c.copyCompacted()
	c.set(dir, string(moved), c.fx.kv[key])
	c.describe("index key %x copied to %x", key, moved)
	_, v := indexEntry(key)
	index := map[byte]string{'c': "challenge", 'm': "miner", 'd': "duel"}[key[0]]
	return expectStoreDamage(c.verifyStore(dir), fmt.Sprintf("store damage: the store's %s index holds an entry of validator %s's log (key %x)", index, v, moved))
}

// expectStoreDamage wants one failure, the store's, whose reason holds
// every text.
func expectStoreDamage(v verdict, texts ...string) (string, error) {
	class, err := expectText(v, texts[0])
	if err != nil {
		return class, err
	}
	f := v.rep.Failures
	if len(f) != 1 || f[0].Validator != "" {
		return class, fmt.Errorf("failures %v, want the store's damage only", v)
	}
	for _, t := range texts[1:] {
		if !strings.Contains(f[0].Reason, t) {
			return class, fmt.Errorf("failure %q does not say %q", f[0].Reason, t)
		}
	}
	return class, nil
}

// expectObject judges the tampering of object c: a head block fails the
// open, another block fails at its height, a transcript or decision at
// the first block that links it.
func (fx *tamperFixture) expectObject(v verdict, c cid.Cid) (string, error) {
	if blk := fx.block(c); blk != nil {
		if fx.heads[blk.v] == blk {
			return expectRefused(v, blk.v.String(), c.String())
		}
		return expectAt(v, spot{blk.v.String(), blk.height, c.String(), -1})
	}
	uses := fx.linkedBy[c.String()]
	if len(uses) == 0 {
		return "", fmt.Errorf("object %s is linked by no block", c)
	}
	u := uses[0]
	return expectAt(v, spot{u.blk.v.String(), u.blk.height, u.blk.cid.String(), u.index})
}

// expectKey judges the tampering of an index key: what the open checks
// (a head, the height index at a head's height, the frontier, the
// layout version) is refused naming the validator; a height index below
// the head fails the chain at that height.
func (fx *tamperFixture) expectKey(v verdict, key string) (string, error) {
	if key == "\x00network" {
		return expectRefused(v, "network")
	}
	if key[0] == 0 {
		return expectRefused(v, "layout")
	}
	var val keys.PublicKey
	copy(val[:], key[1:33])
	if key[0] == 'b' {
		h := uint64(0)
		for _, b := range []byte(key[33:41]) {
			h = h<<8 | uint64(b)
		}
		if head := fx.heads[val]; h < head.height {
			// Not the block's CID: what names it may be the damage.
			return expectAt(v, spot{val.String(), h, "", -1})
		}
	}
	return expectRefused(v, val.String())
}

func expectRefused(v verdict, texts ...string) (string, error) {
	class, err := expectText(v, texts...)
	if err == nil && class != classRefused {
		return class, fmt.Errorf("failure %q, want the store refused at open", v.first())
	}
	return class, err
}

func (fx *tamperFixture) block(c cid.Cid) *fixBlock {
	for i := range fx.blocks {
		if fx.blocks[i].cid.Equals(c) {
			return &fx.blocks[i]
		}
	}
	return nil
}

// order is where verify first reaches object c: (block position,
// transcript index).
func (fx *tamperFixture) order(c cid.Cid) [2]int {
	if blk := fx.block(c); blk != nil {
		return [2]int{blk.pos, -1}
	}
	u := fx.linkedBy[c.String()][0]
	return [2]int{u.blk.pos, u.index}
}

func keyCID(key string) cid.Cid {
	c, err := cid.Cast([]byte(key[1:]))
	if err != nil {
		panic(err)
	}
	return c
}
