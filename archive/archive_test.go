package archive_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/archive"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

var spec = verifytest.Spec{Validators: 2, Blocks: 3, PerBlock: 4, Decisions: true}

func open(t testing.TB, dir string) *ledger.Store {
	t.Helper()
	s, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// exported builds a ledger of spec with a fork proof and exports it.
func exported(t testing.TB) (*ledger.Store, []byte) {
	return exportedSpec(t, spec)
}

func exportedSpec(t testing.TB, spec verifytest.Spec) (*ledger.Store, []byte) {
	t.Helper()
	s := open(t, filepath.Join(t.TempDir(), "src"))
	ks, err := verifytest.Build(s, spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verifytest.Equivocate(s, ks[0], 1); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	st, err := archive.Export(s, &buf)
	if err != nil {
		t.Fatal(err)
	}
	want := archive.Stats{Chains: spec.Validators, Blocks: spec.Validators * spec.Blocks, Transcripts: spec.Validators * spec.Blocks * spec.PerBlock,
		Decisions: spec.Validators * (spec.Blocks / 2), ForkProofs: 1, Bytes: int64(buf.Len())}
	if st != want {
		t.Fatalf("export stats %+v, want %+v", st, want)
	}
	return s, buf.Bytes()
}

func verifyCAR(t testing.TB, car []byte) verify.Report {
	t.Helper()
	rep, err := verify.VerifyCAR(bytes.NewReader(car), verify.Options{Reexecute: true, StrictSeeds: true, Challenges: verify.NewMemSet()})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func verifyStore(t testing.TB, s *ledger.Store) verify.Report {
	t.Helper()
	heads, err := verify.StoreHeads(s, verify.StoreScope{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verify.VerifyStore(s, heads, verify.StoreScope{}, verify.Options{Reexecute: true, StrictSeeds: true, Challenges: verify.NewMemSet()})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestRoundTrip: export, verify the archive, import it into an empty
// store, verify that store: the same chains, the same findings.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	src, car := exported(t)
	before := verifyStore(t, src)
	fromCAR := verifyCAR(t, car)
	for _, r := range []verify.Report{before, fromCAR} {
		if r.Chains != 2 || r.Blocks != 6 || r.Transcripts != 24 || r.ForkProofs != 1 || len(r.Failures) != 1 ||
			!strings.Contains(r.Failures[0].Reason, "equivocation") {
			t.Fatalf("report %+v", r)
		}
	}
	dst := open(t, t.TempDir())
	st, err := archive.Import(dst, bytes.NewReader(car), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Chains != 2 || st.Blocks != 6 || st.Transcripts != 24 || st.ForkProofs != 1 {
		t.Fatalf("import stats %+v", st)
	}
	after := verifyStore(t, dst)
	if after.Blocks != before.Blocks || after.Transcripts != before.Transcripts || after.Bytes != before.Bytes ||
		len(after.Failures) != 1 || after.Failures[0] != before.Failures[0] {
		t.Fatalf("after import %+v\nbefore %+v", after, before)
	}
	// Exporting the imported store gives the same bytes.
	var again bytes.Buffer
	if _, err := archive.Export(dst, &again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), car) {
		t.Fatal("re-export differs from the original export")
	}
	// Importing again changes nothing and succeeds.
	if _, err := archive.Import(dst, bytes.NewReader(car), archive.ImportOptions{}); err != nil {
		t.Fatalf("second import: %v", err)
	}
}

// sections splits an export into its header and sections (CID || data).
func sections(t testing.TB, car []byte) ([]byte, [][]byte) {
	t.Helper()
	n, k := binary.Uvarint(car)
	header := car[:k+int(n)]
	var out [][]byte
	for rest := car[k+int(n):]; len(rest) > 0; {
		n, k := binary.Uvarint(rest)
		out = append(out, rest[k:k+int(n)])
		rest = rest[k+int(n):]
	}
	return header, out
}

func join(header []byte, secs [][]byte) []byte {
	out := append([]byte(nil), header...)
	for _, s := range secs {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	return out
}

// TestImportRejects: a malformed or doctored archive is refused with a
// message naming what is wrong, and verify --car fails on the same.
func TestImportRejects(t *testing.T) {
	t.Parallel()
	_, car := exported(t)
	header, secs := sections(t, car)
	if len(secs) != 33 {
		t.Fatalf("%d sections, the cases below assume 33", len(secs))
	}
	const cidLen = 36
	flipData := func(i int) []byte {
		s := append([]byte(nil), secs[i]...)
		s[len(s)-1] ^= 1
		c := append(append([][]byte(nil), secs[:i]...), s)
		return join(header, append(c, secs[i+1:]...))
	}
	without := func(i int) []byte {
		return join(header, append(append([][]byte(nil), secs[:i]...), secs[i+1:]...))
	}
	swapped := func(i, j int) []byte {
		c := append([][]byte(nil), secs...)
		c[i], c[j] = c[j], c[i]
		return join(header, c)
	}
	withRoots := func(edit func([]cid.Cid) []cid.Cid) []byte {
		h, err := verifytest.WithRoots(header, edit)
		if err != nil {
			t.Fatal(err)
		}
		return join(h, secs)
	}
	cases := []struct {
		name string
		car  []byte
		want string // in the import error
		// malformed: import fails with ErrMalformed rather than ErrRejected.
		malformed bool
	}{
		{"empty", nil, "header", true},
		{"not a car", []byte("hello world"), "header", true},
		{"truncated", car[:len(car)-10], "section", true},
		{"block bytes", flipData(0), "section 0", false},
		{"transcript bytes", flipData(1), "section 1", false},
		{"missing transcript", without(2), "links", false},
		{"objects out of order", swapped(1, 2), "links", false},
		// Sections: chain 0 is 0..15 (blocks at 0, 5, 11; a decision at
		// 10), chain 1 is 16..31, the fork proof 32.
		{"missing block", join(header, append(append([][]byte(nil), secs[:5]...), secs[11:]...)), "height 2 where height 1 comes next", false},
		{"chains out of order", join(header, append(append(append([][]byte(nil), secs[16:32]...), secs[:16]...), secs[32])), "increasing validator order", false},
		{"decision missing", without(10), "links", false},
		{"fork proof first", join(header, append([][]byte{secs[32]}, secs[:32]...)), "above the validator's imported chain", false},
		{"wrong root", withRoots(func(r []cid.Cid) []cid.Cid { r[0], r[1] = r[1], r[0]; return r }), "root 0 is", false},
		{"header short of a root", withRoots(func(r []cid.Cid) []cid.Cid { return r[:1] }), "the header names 1 roots, the archive holds 2 chains", false},
		{"block after the fork proofs", join(header, append(append([][]byte(nil), secs...), secs[0])), "block after the fork proofs", false},
		{"transcript where a fork proof belongs", join(header, append(append([][]byte(nil), secs[:32]...), secs[1])), "neither a block nor a fork proof", false},
		{"archive ends within a block's objects", join(header, secs[:1]), "archive ends before object", false},
		{"bad cid prefix", func() []byte {
			c := append([][]byte(nil), secs...)
			s := append([]byte(nil), c[0]...)
			s[1] = 0x55 // raw codec instead of dag-cbor
			c[0] = s
			return join(header, c)
		}(), "dag-cbor", true},
	}
	_ = cidLen
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dst := open(t, t.TempDir())
			_, err := archive.Import(dst, bytes.NewReader(tc.car), archive.ImportOptions{})
			if err == nil {
				t.Fatal("import accepted it")
			}
			if tc.malformed != errors.Is(err, archive.ErrMalformed) || (!tc.malformed && !errors.Is(err, archive.ErrRejected)) {
				t.Fatalf("error class: %v", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not say %q", err, tc.want)
			}
			rep, err := verify.VerifyCAR(bytes.NewReader(tc.car), verify.Options{Challenges: verify.NewMemSet()})
			if err == nil && rep.OK {
				t.Fatalf("verify --car passed it: %+v", rep)
			}
		})
	}
}

// TestVerifyCARNamesTamperedTranscript: a doctored transcript in an
// archive fails at that block and transcript, and the other chain still
// verifies.
func TestVerifyCARNamesTamperedTranscript(t *testing.T) {
	t.Parallel()
	_, car := exported(t)
	header, secs := sections(t, car)
	// Section 0 is chain 0's block 0, 1..4 its transcripts.
	s := append([]byte(nil), secs[3]...)
	s[len(s)-2] ^= 1
	secs[3] = s
	rep := verifyCAR(t, join(header, secs))
	if rep.OK || len(rep.Failures) != 2 {
		t.Fatalf("want the tamper and the fork proof: %+v", rep.Failures)
	}
	f := rep.Failures[0]
	blk, err := record.DecodeBlock(secs[0][36:])
	if err != nil {
		t.Fatal(err)
	}
	if f.Height != 0 || f.Transcript != 2 || f.CID != codec.Sum(secs[0][36:]).String() || f.Validator != blk.Validator.String() {
		t.Fatalf("failure %+v", f)
	}
	if rep.Chains != 2 || rep.Transcripts < 12+3 {
		t.Fatalf("second chain not verified: %+v", rep)
	}
}

func TestExportEmptyStore(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	if _, err := archive.Export(s, &bytes.Buffer{}); !errors.Is(err, archive.ErrEmpty) {
		t.Fatalf("export of an empty store: %v", err)
	}
}

// FuzzReadCAR: the archive reader (recycling its buffers), the verifier
// over it and the import path never panic, whatever the bytes. One store per fuzz process takes
// every import (opening one per input would dominate the run). The seed is
// a tiny archive (two chains of two one-transcript blocks and a fork
// proof): the fuzzer minimizes interesting inputs, which is slow for big
// ones.
func FuzzReadCAR(f *testing.F) {
	_, car := exportedSpec(f, verifytest.Spec{Validators: 2, Blocks: 2, PerBlock: 1, Envs: []string{"mult8"}, Decisions: true})
	f.Add(car)
	f.Add(car[:len(car)/2])
	f.Add([]byte{})
	f.Add([]byte{0x0a, 0xa1, 0x67, 'v', 'e', 'r', 's', 'i', 'o', 'n', 0x01})
	s := open(f, f.TempDir())
	f.Fuzz(func(t *testing.T, data []byte) {
		if r, err := archive.NewReader(bytes.NewReader(data)); err == nil {
			for i := 0; i < 1000; i++ {
				sec, err := r.Next()
				if err != nil {
					break
				}
				archive.Classify(sec.Data)
				r.Recycle(sec.Data)
			}
		}
		verify.VerifyCAR(bytes.NewReader(data), verify.Options{Challenges: verify.NewMemSet()})
		archive.Import(s, bytes.NewReader(data), archive.ImportOptions{})
	})
}

// TestImportForkProofAtTheHead: a validator that signed two blocks at its
// chain's newest height (the commonest fork, at the tip) exports a fork
// proof at the height of its head; importing it records the proof.
func TestImportForkProofAtTheHead(t *testing.T) {
	t.Parallel()
	s := open(t, filepath.Join(t.TempDir(), "src"))
	ks, err := verifytest.Build(s, spec)
	if err != nil {
		t.Fatal(err)
	}
	head := uint64(spec.Blocks - 1)
	if _, err := verifytest.Equivocate(s, ks[0], head); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := archive.Export(s, &buf); err != nil {
		t.Fatal(err)
	}
	dst := open(t, t.TempDir())
	st, err := archive.Import(dst, bytes.NewReader(buf.Bytes()), archive.ImportOptions{})
	if err != nil {
		t.Fatalf("import of a fork proof at the head's height %d: %v", head, err)
	}
	if st.ForkProofs != 1 {
		t.Fatalf("import stats %+v, want one fork proof", st)
	}
	rep := verifyStore(t, dst)
	if rep.ForkProofs != 1 || len(rep.Failures) != 1 || rep.Failures[0].Height != head || !strings.Contains(rep.Failures[0].Reason, "equivocation") {
		t.Fatalf("imported store's report %+v, want the equivocation at height %d", rep, head)
	}
}
