package verify_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// FuzzVerifyCARSections: an export whose sections are dropped, repeated,
// moved, swapped, damaged or given another section's bytes never makes
// the archive audit panic, and never passes it unless the archive is the
// export byte for byte. The fuzzer's input is a list of such edits rather
// than the file's bytes, so that it reaches archives of sections that all
// hash to their CIDs (a decision where a block belongs, a block's objects
// cut short), which random bytes almost never are.
func FuzzVerifyCARSections(f *testing.F) {
	header, secs := exportOf(f, verifytest.Spec{Validators: 2, Blocks: 3, PerBlock: 2, Envs: []string{"mult8"}, Decisions: true})
	export := joinCAR(header, secs)
	f.Add([]byte{})
	f.Add([]byte{0, 1, 0})           // drop a transcript
	f.Add([]byte{1, 3, 0})           // repeat a block
	f.Add([]byte{2, 4, 11})          // move a decision ahead of a block
	f.Add([]byte{3, 0, 10})          // swap a chain's first blocks
	f.Add([]byte{4, 0, 7})           // damage the first block
	f.Add([]byte{5, 10, 6, 0, 9, 0}) // a block's bytes under a decision's CID, then drop
	f.Fuzz(func(t *testing.T, edits []byte) {
		cs := slices.Clone(secs)
		for ; len(edits) >= 3 && len(cs) > 0; edits = edits[3:] {
			i, j := int(edits[1])%len(cs), int(edits[2])%len(cs)
			switch edits[0] % 6 {
			case 0:
				cs = slices.Delete(cs, i, i+1)
			case 1:
				cs = slices.Insert(cs, i, cs[i])
			case 2:
				s := cs[i]
				cs = slices.Insert(slices.Delete(cs, i, i+1), min(j, len(cs)-1), s)
			case 3:
				cs[i], cs[j] = cs[j], cs[i]
			case 4:
				// One bit of the data, after the 36 bytes of the CID.
				s := bytes.Clone(cs[i])
				s[36+int(edits[2])%(len(s)-36)] ^= 1 << (edits[2] % 8)
				cs[i] = s
			case 5:
				cs[i] = slices.Concat(cs[i][:36], cs[j][36:])
			}
		}
		car := joinCAR(header, cs)
		// One worker: the fuzzer's coverage then depends less on how
		// goroutines happen to be scheduled.
		rep, err := verify.VerifyCAR(bytes.NewReader(car), verify.Options{Challenges: verify.NewMemSet(), Workers: 1})
		if err == nil && rep.OK && !bytes.Equal(car, export) {
			t.Fatalf("an archive that is not the export verified (%d sections of %d)", len(cs), len(secs))
		}
	})
}
