package verify_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/archive"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// exportOf builds spec and exports it: the header, then each section
// (CID and data).
func exportOf(t testing.TB, spec verifytest.Spec) ([]byte, [][]byte) {
	t.Helper()
	dir, _ := buildAt(t, spec)
	s, err := verify.OpenStore(copyStore(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var buf bytes.Buffer
	if _, err := archive.Export(s, &buf); err != nil {
		t.Fatal(err)
	}
	return splitCAR(buf.Bytes())
}

func joinCAR(header []byte, secs [][]byte) []byte {
	out := bytes.Clone(header)
	for _, s := range secs {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	return out
}

// withRoot is header with root i replaced.
func withRoot(t *testing.T, header []byte, i int, root codec.Link) []byte {
	t.Helper()
	return withRoots(t, header, func(roots []cid.Cid) []cid.Cid { roots[i] = root.Cid; return roots })
}

// withRoots is header with its roots edited.
func withRoots(t *testing.T, header []byte, edit func([]cid.Cid) []cid.Cid) []byte {
	t.Helper()
	h, err := verifytest.WithRoots(header, edit)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func sectionBlock(t *testing.T, sec []byte) *record.Block {
	t.Helper()
	b, err := record.DecodeBlock(sec[36:])
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVerifyCARRootOfFailedChain: a chain that fails before its end
// still has its root checked, against the last block the archive files
// in it, so damage to the header is reported whatever else is damaged.
func TestVerifyCARRootOfFailedChain(t *testing.T) {
	t.Parallel()
	// Sections: chain 0 is 0..3 (block, transcript, block, transcript),
	// chain 1 is 4..7.
	header, secs := exportOf(t, verifytest.Spec{Validators: 2, Blocks: 2, PerBlock: 1, Envs: []string{"mult8"}})
	secs[1] = bytes.Clone(secs[1])
	secs[1][len(secs[1])-1] ^= 1
	header = withRoot(t, header, 0, codec.LinkTo(codec.Sum([]byte("elsewhere"))))
	rep := verifyCARBytes(joinCAR(header, secs)).rep
	v0 := sectionBlock(t, secs[0]).Validator.String()
	if len(rep.Failures) != 2 {
		t.Fatalf("want the transcript and the root: %v", rep.Failures)
	}
	if f := rep.Failures[0]; f.Validator != v0 || f.Height != 0 || f.Transcript != 0 {
		t.Fatalf("first failure %v, want chain 0's transcript 0", f)
	}
	if f := rep.Failures[1]; f.Validator != v0 || f.Height != 1 || f.Transcript != -1 || !strings.Contains(f.Reason, "root 0 is") || !strings.Contains(f.Reason, "section 2 at byte") {
		t.Fatalf("second failure %v, want root 0 against chain 0's last block (section 2)", f)
	}
}

// TestVerifyCARReadsOnAfterChainOrder: a block of an earlier validator
// inside a later chain (or a damaged validator key) fails there, and the
// archive is read on: the roots show that the chain stopped short.
func TestVerifyCARReadsOnAfterChainOrder(t *testing.T) {
	t.Parallel()
	// Chain i is sections 4i..4i+3; section 10 is chain 2's block 1.
	header, secs := exportOf(t, verifytest.Spec{Validators: 3, Blocks: 2, PerBlock: 1, Envs: []string{"mult8"}})
	secs[10] = secs[2]
	rep := verifyCARBytes(joinCAR(header, secs)).rep
	if len(rep.Failures) != 2 {
		t.Fatalf("want the order and the root: %v", rep.Failures)
	}
	if f := rep.Failures[0]; !strings.Contains(f.Reason, "section 10 at byte") || !strings.Contains(f.Reason, "increasing validator order") {
		t.Fatalf("first failure %v", f)
	}
	v2 := sectionBlock(t, secs[8]).Validator.String()
	if f := rep.Failures[1]; f.Validator != v2 || f.Height != 0 || f.Transcript != -1 || !strings.Contains(f.Reason, "root 2 is") {
		t.Fatalf("second failure %v, want root 2 against chain 2's block 0", f)
	}
}

// TestVerifyCARDamagedValidatorKeyBlamesOnlyItsChain: one byte of the
// validator key inside chain 0's block 1 is changed so that the key sorts
// between chain 0's and chain 1's. The block no longer hashes to its CID
// (B1), so nothing it claims can be trusted: chains 1 and 2, whose
// sections are untouched, must not be blamed, and the archive holds 3
// chains. (Taken at its word, the damaged key would start a fourth chain,
// every later block of chain 0 would be out of order, and the roots of
// chains 1 and 2 would be compared with the wrong chains.)
func TestVerifyCARDamagedValidatorKeyBlamesOnlyItsChain(t *testing.T) {
	t.Parallel()
	// Chain i is sections 8i..8i+7: (block, transcript) x 4.
	header, secs := exportOf(t, verifytest.Spec{Validators: 3, Blocks: 4, PerBlock: 1, Envs: []string{"mult8"}})
	var vs [3]string
	for i := range vs {
		vs[i] = sectionBlock(t, secs[8*i]).Validator.String()
	}
	v := sectionBlock(t, secs[2]).Validator
	at := bytes.Index(secs[2][36:], v[:])
	if at < 0 {
		t.Fatal("validator key not found in the block's bytes")
	}
	secs[2] = bytes.Clone(secs[2])
	secs[2][36+at+31]++ // sorts just above validator 0, below validator 1
	rep := verifyCARBytes(joinCAR(header, secs)).rep
	if rep.OK {
		t.Fatal("damaged archive verified")
	}
	for _, f := range rep.Failures {
		if f.Validator == vs[1] || f.Validator == vs[2] {
			t.Errorf("failure blames an untouched chain: %v", f)
		}
	}
	if rep.Chains != 3 {
		t.Errorf("%d chains counted, the archive holds 3", rep.Chains)
	}
	if t.Failed() {
		for _, f := range rep.Failures {
			t.Logf("failure: %v", f)
		}
	}
}

// TestVerifyCARPlacesDamagedBlocks: a block whose bytes no longer hash
// to its CID is placed by intact data alone (spec/verify.md#reading-an-archive):
// the chain being read and its root, the roots of later chains, the
// block the reader resumes at. The chain it belongs to fails there, under
// no validator if no intact block tells it, and nothing else fails: the
// other chains verify and every root matches.
func TestVerifyCARPlacesDamagedBlocks(t *testing.T) {
	t.Parallel()
	// Chain i is sections 6i..6i+5: (block, transcript) x 3.
	header, secs := exportOf(t, verifytest.Spec{Validators: 3, Blocks: 3, PerBlock: 1, Envs: []string{"mult8"}})
	var vs [3]string
	for i := range vs {
		vs[i] = sectionBlock(t, secs[6*i]).Validator.String()
	}
	for _, tc := range []struct {
		name    string
		damaged []int // sections, the first one reported
		chain   int   // -1: no validator named
		height  uint64
		blocks  int // counted: a chain's blocks up to the one that fails
	}{
		{"the first section", []int{0}, 0, 0, 7},
		{"a chain's last block", []int{4}, 0, 2, 9},
		{"a later chain's first block", []int{6}, 1, 0, 7},
		{"a later chain's first two blocks", []int{6, 8}, 1, 0, 7},
		{"a block within a chain", []int{8}, 1, 1, 8},
		{"every block of a chain", []int{6, 8, 10}, -1, 0, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cs := slices.Clone(secs)
			for _, i := range tc.damaged {
				cs[i] = bytes.Clone(cs[i])
				cs[i][len(cs[i])-1] ^= 1
			}
			rep := verifyCARBytes(joinCAR(header, cs)).rep
			first := tc.damaged[0]
			want := verify.Failure{Height: tc.height, CID: codec.Sum(secs[first][36:]).String(), Transcript: -1}
			if tc.chain >= 0 {
				want.Validator = vs[tc.chain]
			}
			if len(rep.Failures) != 1 {
				t.Fatalf("want one failure: %v", rep.Failures)
			}
			f := rep.Failures[0]
			if f.Validator != want.Validator || f.Height != want.Height || f.CID != want.CID || f.Transcript != -1 ||
				!strings.Contains(f.Reason, fmt.Sprintf("section %d at byte", first)) || !strings.Contains(f.Reason, "do not match") {
				t.Fatalf("failure %v, want a CID mismatch at %v naming section %d", f, want, first)
			}
			if rep.Chains != 3 || rep.Blocks != tc.blocks {
				t.Errorf("%d chains and %d blocks counted, want 3 and %d", rep.Chains, rep.Blocks, tc.blocks)
			}
		})
	}
}

// TestVerifyCARSkipsAFailedChainsObjects: chain 0's block 1 carries a
// decision record that is a copy of chain 1's block 0, as any validator
// may write. Once chain 0 has failed (its first transcript is damaged),
// its later blocks are not checked, and their objects are skipped by the
// links they name: read where a block may be, the copy would start chain
// 1 early, and the real chain 1 would be blamed for coming after it.
func TestVerifyCARSkipsAFailedChainsObjects(t *testing.T) {
	t.Parallel()
	dir, ks := buildAt(t, verifytest.Spec{Validators: 2, Blocks: 1, PerBlock: 1, Envs: []string{"mult8"}})
	first, second := ks[0], ks[1]
	if a, b := first.Public(), second.Public(); bytes.Compare(b[:], a[:]) < 0 {
		first, second = second, first
	}
	s := open(t, dir)
	copied, err := s.BlockAt(second.Public(), 0)
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.NewAppender(first)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := verifytest.Transcript(first.Public(), verifytest.BlockAnchor(1), "mult8", 0, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Append(context.Background(), verifytest.BlockAnchor(1), []record.Transcript{tr}, [][]byte{copied.Raw}); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(a.Close(), s.Close()); err != nil {
		t.Fatal(err)
	}
	s, err = verify.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	_, err = archive.Export(s, &buf)
	if err := errors.Join(err, s.Close()); err != nil {
		t.Fatal(err)
	}
	header, secs := splitCAR(buf.Bytes())
	// Sections: chain 0 is block 0, its transcript, block 1, its
	// transcript, the copy; chain 1 is block 0, its transcript.
	if len(secs) != 7 || !bytes.Equal(secs[4][36:], copied.Raw) {
		t.Fatalf("%d sections, want 7 with the copy fifth", len(secs))
	}
	secs[1] = bytes.Clone(secs[1])
	secs[1][len(secs[1])-1] ^= 1
	rep := verifyCARBytes(joinCAR(header, secs)).rep
	if len(rep.Failures) != 1 {
		t.Fatalf("want chain 0's transcript only: %v", rep.Failures)
	}
	if f := rep.Failures[0]; f.Validator != first.Public().String() || f.Height != 0 || f.Transcript != 0 {
		t.Fatalf("failure %v, want chain 0's block 0, transcript 0", f)
	}
	if rep.Chains != 2 {
		t.Fatalf("%d chains, want 2", rep.Chains)
	}
}

// TestVerifyCARForgedForkProof: a section after the chains that hashes to
// its CID and has a fork proof's shape, but whose second block another
// key signed, proves nothing: it is the archive's failure (no validator,
// no transcript), and no equivocation is reported.
func TestVerifyCARForgedForkProof(t *testing.T) {
	t.Parallel()
	dir, ks := buildAt(t, verifytest.Spec{Validators: 2, Blocks: 1, PerBlock: 1, Envs: []string{"mult8"}})
	header, secs := splitCAR(exportDir(t, dir))
	b0 := sectionBlock(t, secs[0])
	forger := ks[0]
	if forger.Public() == b0.Validator {
		forger = ks[1]
	}
	h := b0.Header
	h.TimeMS++
	twin, twinCID := signAnyway(t, h, forger)
	a, b := secs[0][36:], twin
	if bytes.Compare(codec.Sum(a).Bytes(), twinCID.Bytes()) > 0 {
		a, b = b, a
	}
	p := record.ForkProof{Format: record.ForkProofFormat, Validator: b0.Validator, Height: 0, A: a, B: b}
	raw, pc, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	rep := verifyCARBytes(joinCAR(header, append(slices.Clone(secs), append(pc.Bytes(), raw...)))).rep
	if rep.ForkProofs != 1 || len(rep.Failures) != 1 {
		t.Fatalf("want the forged proof counted and failed: %+v", rep)
	}
	if f := rep.Failures[0]; f.Validator != "" || f.CID != pc.String() || f.Transcript != -1 || !strings.Contains(f.Reason, "recorded fork proof does not verify") {
		t.Fatalf("failure %v, want the archive's, naming the proof", f)
	}
}

// TestVerifyCARHeaderShortOfRoots: a header that names fewer roots than
// the archive has chains fails at the chain without one.
func TestVerifyCARHeaderShortOfRoots(t *testing.T) {
	t.Parallel()
	header, secs := exportOf(t, verifytest.Spec{Validators: 2, Blocks: 2, PerBlock: 1, Envs: []string{"mult8"}})
	header = withRoots(t, header, func(roots []cid.Cid) []cid.Cid { return roots[:1] })
	rep := verifyCARBytes(joinCAR(header, secs)).rep
	last := sectionBlock(t, secs[6])
	if len(rep.Failures) != 1 {
		t.Fatalf("want one failure: %v", rep.Failures)
	}
	if f := rep.Failures[0]; f.Validator != last.Validator.String() || f.Height != 1 || f.CID != codec.Sum(secs[6][36:]).String() || f.Transcript != -1 ||
		!strings.Contains(f.Reason, "chain 1 has no root: the header names 1 roots") {
		t.Fatalf("failure %v, want chain 1's last block without a root", f)
	}
}

// TestVerifyCARForkProofSections: after the first fork proof only fork
// proofs belong, each checked on its own. Two validators equivocated, so
// the archive ends with two proofs; a section added after them is a
// failure of the archive: a damaged proof (read on), a block (the reader
// stops), or any other record (read on).
func TestVerifyCARForkProofSections(t *testing.T) {
	t.Parallel()
	dir, ks := buildAt(t, verifytest.Spec{Validators: 2, Blocks: 2, PerBlock: 1, Envs: []string{"mult8"}})
	s := open(t, dir)
	for _, k := range ks {
		if _, err := verifytest.Equivocate(s, k, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	header, secs := splitCAR(exportDir(t, dir))
	// Sections: chain i is 4i..4i+3 (block, transcript) x 2; the proofs
	// are 8 and 9.
	if len(secs) != 10 {
		t.Fatalf("%d sections, want 10", len(secs))
	}
	damaged := bytes.Clone(secs[9])
	damaged[len(damaged)-1] ^= 1
	for _, tc := range []struct {
		name  string
		extra []byte // the section after the proofs, nil for none
		want  string // the last failure's reason, "" for none
	}{
		{"two proofs", nil, ""},
		{"a damaged proof", damaged, "fork proof bytes do not match their CID"},
		{"a block", secs[0], "block after the fork proofs"},
		{"a transcript", secs[1], "not a fork proof where one belongs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cs := slices.Clone(secs)
			if tc.extra != nil {
				cs = append(cs, tc.extra)
			}
			rep := verifyCARBytes(joinCAR(header, cs)).rep
			equivocations := 0
			for _, f := range rep.Failures[:min(2, len(rep.Failures))] {
				if f.Height == 1 && f.Transcript == -1 && strings.Contains(f.Reason, "equivocation") {
					equivocations++
				}
			}
			if equivocations != 2 || rep.Chains != 2 || rep.Blocks != 4 {
				t.Fatalf("want both chains read and both proofs reported first: %+v", rep)
			}
			extra := rep.Failures[2:]
			if tc.want == "" {
				if len(extra) != 0 || rep.ForkProofs != 2 {
					t.Fatalf("%d fork proofs, failures after them %v; want 2, none", rep.ForkProofs, extra)
				}
				return
			}
			if len(extra) != 1 || extra[0].Validator != "" || extra[0].Transcript != -1 ||
				!strings.Contains(extra[0].Reason, "section 10 at byte") || !strings.Contains(extra[0].Reason, tc.want) {
				t.Fatalf("failures after the proofs %v, want one of the archive saying %q", extra, tc.want)
			}
		})
	}
}
