package verify_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/archive"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// The same subnet on another chain, and another subnet of the same
// chain: where a hotkey of this ledger may sign blocks too.
var (
	otherChain  = record.Network{Genesis: sha256.Sum256([]byte("another chain")), Netuid: recordtest.Network.Netuid}
	otherSubnet = record.Network{Genesis: recordtest.Network.Genesis, Netuid: recordtest.Network.Netuid + 1}
)

// networkKey is the store's meta key of its network (spec/store.md), which
// the ledgertest helpers do not export. A store written before block
// format 2 has none.
var networkKey = []byte("\x00network")

// buildOn builds spec in a store bound to n.
func buildOn(t testing.TB, spec verifytest.Spec, n record.Network) (string, []*keys.Hotkey) {
	t.Helper()
	dir := t.TempDir()
	s, err := ledger.Open(dir, ledger.WithNetwork(n))
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

// resignChain plays a validator that signed k's blocks from height from
// up as edit leaves them: each is signed again, linking the one re-signed
// before it, and installed in the closed store at dir under its own CID,
// the head included. The transcripts and the log are unchanged.
func resignChain(t *testing.T, dir string, k *keys.Hotkey, from uint64, edit func(*record.Header)) []cid.Cid {
	t.Helper()
	s, err := verify.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	head, err := s.Head(k.Public())
	if err != nil {
		t.Fatal(err)
	}
	var blocks []record.Header
	for h := uint64(0); h <= head.Block.Height; h++ {
		b, err := s.BlockAt(k.Public(), h)
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, b.Header)
	}
	prev := cid.Undef
	if from > 0 {
		b, err := s.BlockAt(k.Public(), from-1)
		if err != nil {
			t.Fatal(err)
		}
		prev = b.CID
	}
	s.Close()
	var out []cid.Cid
	for _, h := range blocks[from:] {
		if prev.Defined() {
			h.Prev = codec.LinkTo(prev)
		}
		edit(&h)
		_, raw, c, err := record.Sign(h, k)
		if err != nil {
			t.Fatal(err)
		}
		install(t, dir, k.Public(), h.Height, c, raw)
		prev = c
		out = append(out, c)
	}
	if err := ledgertest.SetHead(dir, k.Public(), prev); err != nil {
		t.Fatal(err)
	}
	return out
}

// asFormat1 makes a header one of block format 1, which names no network.
func asFormat1(h *record.Header) { h.Format, h.Net = record.BlockFormatV1, record.Network{} }

// legacyLedger is small as a store written before block format 2 holds
// it: chains of format-1 blocks, no network recorded.
func legacyLedger(t *testing.T) (string, []*keys.Hotkey) {
	t.Helper()
	dir, ks := build(t, small)
	for _, k := range ks {
		resignChain(t, dir, k, 0, asFormat1)
	}
	if err := ledgertest.Delete(dir, networkKey); err != nil {
		t.Fatal(err)
	}
	return dir, ks
}

func audit(t *testing.T, dir string, scope verify.StoreScope, opts verify.Options) verify.Report {
	t.Helper()
	s, err := verify.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	heads, err := verify.StoreHeads(s, scope)
	if err != nil {
		t.Fatal(err)
	}
	opts.Reexecute, opts.StrictSeeds, opts.Challenges = true, true, verify.NewMemSet()
	rep, err := verify.VerifyStore(s, heads, scope, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := wellFormed(rep); err != nil {
		t.Error(err)
	}
	return rep
}

func exportDir(t *testing.T, dir string) []byte {
	t.Helper()
	s, err := verify.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var buf bytes.Buffer
	if _, err := archive.Export(s, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func verifyCAR(t *testing.T, car []byte, opts verify.Options) verify.Report {
	t.Helper()
	opts.Reexecute, opts.StrictSeeds, opts.Challenges = true, true, verify.NewMemSet()
	rep, err := verify.VerifyCAR(bytes.NewReader(car), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := wellFormed(rep); err != nil {
		t.Error(err)
	}
	return rep
}

func networkOf(t *testing.T, rep verify.Report, want record.Network) {
	t.Helper()
	switch {
	case want.IsZero() && rep.Network != nil:
		t.Fatalf("report names network %s, want none", rep.Network)
	case !want.IsZero() && (rep.Network == nil || *rep.Network != want):
		t.Fatalf("report names network %v, want %s", rep.Network, want)
	}
}

// TestNetworkIsReported: a ledger's network is the store's, the archive's
// blocks', or the one asserted, and an assertion of the whole network or
// of a part that the ledger matches passes.
func TestNetworkIsReported(t *testing.T) {
	t.Parallel()
	dir, _ := build(t, small)
	car := exportDir(t, dir)
	n := recordtest.Network
	other := otherChain.Genesis
	for _, tc := range []struct {
		name string
		opts verify.Options
	}{
		{"unasserted", verify.Options{}},
		{"asserted", verify.Options{Genesis: &n.Genesis, Netuid: &n.Netuid}},
		{"netuid", verify.Options{Netuid: &n.Netuid}},
		{"genesis", verify.Options{Genesis: &n.Genesis}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rep := audit(t, dir, verify.StoreScope{}, tc.opts)
			if !rep.OK {
				t.Fatalf("store: %v", rep.Failures)
			}
			networkOf(t, rep, n)
			rep = verifyCAR(t, car, tc.opts)
			if !rep.OK {
				t.Fatalf("archive: %v", rep.Failures)
			}
			networkOf(t, rep, n)
		})
	}
	// Asserted wrongly, the archive's first block fails and the report
	// names the network asserted.
	rep := verifyCAR(t, car, verify.Options{Genesis: &other, Netuid: &n.Netuid})
	if len(rep.Failures) != small.Validators {
		t.Fatalf("want every chain to fail: %v", rep.Failures)
	}
	for _, f := range rep.Failures {
		if f.Height != 0 || !strings.Contains(f.Reason, "block of "+n.String()+", the ledger is of "+otherChain.String()) {
			t.Fatalf("failure %v", f)
		}
	}
	networkOf(t, rep, otherChain)
}

// TestStoreOfAnotherNetwork: a store whose recorded network contradicts
// the one asserted fails as a store, and its chains fail at their first
// block, each naming both networks.
func TestStoreOfAnotherNetwork(t *testing.T) {
	t.Parallel()
	dir, ks := build(t, small)
	other := otherSubnet.Netuid
	rep := audit(t, dir, verify.StoreScope{}, verify.Options{Netuid: &other})
	if rep.OK || len(rep.Failures) != 1+len(ks) {
		t.Fatalf("want the store and both chains to fail: %v", rep.Failures)
	}
	if f := rep.Failures[0]; f.Validator != "" || !strings.Contains(f.Reason, "the store records its network as "+recordtest.Network.String()) || !strings.Contains(f.Reason, fmt.Sprintf("netuid %d of any chain", other)) {
		t.Fatalf("store failure %v", f)
	}
	for i, f := range rep.Failures[1:] {
		if f.Validator != ks[i].Public().String() || f.Height != 0 || !strings.Contains(f.Reason, "block of "+recordtest.Network.String()) {
			t.Fatalf("chain failure %v", f)
		}
	}
	networkOf(t, rep, record.Network{})
	// From a later height, the block below it, whose network is that of
	// the chain's state, fails.
	g, u := otherChain.Genesis, otherChain.Netuid
	rep = audit(t, dir, verify.StoreScope{From: 2}, verify.Options{Genesis: &g, Netuid: &u})
	b1, _ := stored(t, dir, ks[0], 1)
	if len(rep.Failures) != 1+len(ks) {
		t.Fatalf("want the store and both chains to fail: %v", rep.Failures)
	}
	if f := rep.Failures[1]; f.Validator != ks[0].Public().String() || f.Height != 1 || f.CID != b1.CID.String() || !strings.Contains(f.Reason, "the ledger is of "+otherChain.String()) {
		t.Fatalf("chain failure %v, want block 1 of %s", f, ks[0].Public())
	}
}

// TestLegacyLedgerVerifies: a store written before block format 2 and its
// archive hold chains of format-1 blocks, which name no network: they
// verify, the whole chain or from a later height, and name none.
func TestLegacyLedgerVerifies(t *testing.T) {
	t.Parallel()
	dir, ks := legacyLedger(t)
	s, err := verify.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range ks {
		if b, err := s.BlockAt(k.Public(), 2); err != nil || b.Format != record.BlockFormatV1 {
			t.Fatalf("block 2 of %s: format %d (%v)", k.Public(), b.Format, err)
		}
	}
	s.Close()
	for _, from := range []uint64{0, 1} {
		rep := audit(t, dir, verify.StoreScope{From: from}, verify.Options{})
		if !rep.OK || rep.Blocks != len(ks)*(small.Blocks-int(from)) {
			t.Fatalf("from %d: %+v", from, rep)
		}
		networkOf(t, rep, record.Network{})
	}
	car := exportDir(t, dir)
	rep := verifyCAR(t, car, verify.Options{})
	if !rep.OK || rep.Blocks != len(ks)*small.Blocks {
		t.Fatalf("archive: %+v", rep)
	}
	networkOf(t, rep, record.Network{})

	// The first block in the layout of format 2 (a net key, zero) is
	// another encoding of the same signed block: not its format's.
	header, secs := splitCAR(car)
	b0 := sectionBlock(t, secs[0])
	raw, c, err := codec.Encode(b0)
	if err != nil {
		t.Fatal(err)
	}
	secs[0] = append(c.Bytes(), raw...)
	onlyFailure(t, verifyCAR(t, joinCAR(header, secs), verify.Options{}), keyOf(t, ks, b0.Validator), 0, c, -1, "format 1 with a net key")
}

// TestMixedFormatsInAChain: a chain's blocks keep its first block's
// format, either way, whether the audit starts at its first block or
// later (the format then is that of the block below).
func TestMixedFormatsInAChain(t *testing.T) {
	t.Parallel()
	base, ks := build(t, small)
	for _, tc := range []struct {
		name string
		edit func(*record.Header)
		want string
	}{
		{"format 1 after 2", func(h *record.Header) {
			if h.Height >= 1 {
				asFormat1(h)
			}
		}, "block of format 1 after a parent of format 2"},
		{"format 2 after 1", func(h *record.Header) {
			if h.Height < 1 {
				asFormat1(h)
			}
		}, "block of format 2 after a parent of format 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := copyStore(t, base)
			cs := resignChain(t, dir, ks[0], 0, tc.edit)
			onlyFailure(t, audit(t, dir, verify.StoreScope{}, verify.Options{}), ks[0], 1, cs[1], -1, tc.want)
			onlyFailure(t, audit(t, dir, verify.StoreScope{From: 1}, verify.Options{}), ks[0], 1, cs[1], -1, tc.want)
			onlyFailure(t, verifyCAR(t, exportDir(t, dir), verify.Options{}), ks[0], 1, cs[1], -1, tc.want)
		})
	}
}

// TestChainsOfTwoNetworks: an archive whose two chains are of two
// networks (a hotkey's chain on another subnet put next to this one's)
// fails the second at its first block, naming both; a fork proof of
// another network, valid in itself, is not this ledger's.
func TestChainsOfTwoNetworks(t *testing.T) {
	t.Parallel()
	spec := verifytest.Spec{Validators: 2, Blocks: 2, PerBlock: 2, Envs: []string{"mult8"}}
	here, ks := buildOn(t, spec, recordtest.Network)
	there, _ := buildOn(t, spec, otherSubnet)
	hHeader, hSecs := splitCAR(exportDir(t, here))
	_, tSecs := splitCAR(exportDir(t, there))
	// Sections: chain i is 6i..6i+5 (block, 2 transcripts) x 2.
	first := sectionBlock(t, hSecs[0]).Validator
	if first != ks[0].Public() && first != ks[1].Public() {
		t.Fatal("the first section is no chain's first block")
	}
	second := ks[0]
	if first == ks[0].Public() {
		second = ks[1]
	}
	mixed := append(append([][]byte(nil), hSecs[:6]...), tSecs[6:]...)
	header := withRoot(t, hHeader, 1, codec.LinkTo(codec.Sum(tSecs[9][36:])))
	want := "block of " + otherSubnet.String() + ", the ledger is of " + recordtest.Network.String()
	onlyFailure(t, verifyCAR(t, joinCAR(header, mixed), verify.Options{}), second, 0, codec.Sum(tSecs[6][36:]), -1, want)

	// The first block forged (signed by another key) naming the other
	// network names no network: the second chain verifies.
	forged := sectionBlock(t, hSecs[0]).Header
	forged.Net = otherSubnet
	raw, c := signAnyway(t, forged, second)
	cs := append([][]byte{append(c.Bytes(), raw...)}, hSecs[1:]...)
	rep := verifyCAR(t, joinCAR(hHeader, cs), verify.Options{})
	onlyFailure(t, rep, keyOf(t, ks, first), 0, c, -1, "bad signature")
	networkOf(t, rep, recordtest.Network)

	// A fork proof of the other network: both blocks are its, so it is
	// valid, and a failure of the archive, not an equivocation here.
	b0 := sectionBlock(t, tSecs[0])
	h := b0.Header
	h.TimeMS++
	_, twin, _, err := record.Sign(h, keyOf(t, ks, b0.Validator))
	if err != nil {
		t.Fatal(err)
	}
	p, err := record.NewForkProof(tSecs[0][36:], twin)
	if err != nil {
		t.Fatal(err)
	}
	raw, pc, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	proof := append(pc.Bytes(), raw...)
	rep = verifyCAR(t, joinCAR(hHeader, append(append([][]byte(nil), hSecs...), proof)), verify.Options{})
	if rep.OK || rep.ForkProofs != 1 || len(rep.Failures) != 1 {
		t.Fatalf("want the fork proof to fail: %+v", rep)
	}
	if f := rep.Failures[0]; f.Validator != "" || f.CID != pc.String() || !strings.Contains(f.Reason, "is not this ledger's: block of "+otherSubnet.String()) {
		t.Fatalf("fork proof failure %v", f)
	}
	// The archive of the other network reports it as equivocation.
	tHeader, _ := splitCAR(exportDir(t, there))
	rep = verifyCAR(t, joinCAR(tHeader, append(append([][]byte(nil), tSecs...), proof)), verify.Options{})
	if len(rep.Failures) != 1 || !strings.Contains(rep.Failures[0].Reason, "equivocation") {
		t.Fatalf("in its own network's archive: %v", rep.Failures)
	}
}

func keyOf(t *testing.T, ks []*keys.Hotkey, v keys.PublicKey) *keys.Hotkey {
	t.Helper()
	for _, k := range ks {
		if k.Public() == v {
			return k
		}
	}
	t.Fatalf("no key of %s", v)
	return nil
}

// splitCAR is an archive's header and its sections (CID and data).
func splitCAR(car []byte) ([]byte, [][]byte) {
	n, k := binary.Uvarint(car)
	header := car[:k+int(n)]
	var secs [][]byte
	for rest := car[k+int(n):]; len(rest) > 0; {
		n, k := binary.Uvarint(rest)
		secs = append(secs, rest[k:k+int(n)])
		rest = rest[k+int(n):]
	}
	return header, secs
}
