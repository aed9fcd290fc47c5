package proofs_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/verify/proofs"
)

// TestRootMismatchSaysHex: a proof whose path leads to another root (a
// wrong leaf index, a consistency path reordered) fails naming both roots
// as hex on one line, never as Go byte slices ("[181 18 57 ...]") as
// github.com/transparency-dev/merkle prints them.
func TestRootMismatchSaysHex(t *testing.T) {
	t.Parallel()
	vectors := validVectors(t)
	read := func(t *testing.T, name string) any {
		t.Helper()
		p, err := proofs.ReadProof(bytes.NewReader(vectors[name]))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	byteSlice := regexp.MustCompile(`\[\d+ \d+`)
	hexRoot := regexp.MustCompile(`\b[0-9a-f]{64}\b`)
	for name, edit := range map[string]func(any) record.Hash{
		"wrong leaf index": func(p any) record.Hash {
			q := p.(*proofs.InclusionProof)
			q.LeafIndex = 7
			return blockRoot(t, q.Block)
		},
		"consistency path reordered": func(p any) record.Hash {
			q := p.(*proofs.ConsistencyProof)
			if len(q.Hashes) < 2 {
				t.Fatalf("the vector's path has %d hashes", len(q.Hashes))
			}
			q.Hashes[0], q.Hashes[1] = q.Hashes[1], q.Hashes[0]
			return record.Hash{} // which root fails depends on the path
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			file := "proof-inclusion.json"
			if strings.HasPrefix(name, "consistency") {
				file = "proof-consistency.json"
			}
			p := read(t, file)
			want := edit(p)
			_, err := proofs.VerifyProof(p)
			if err == nil {
				t.Fatal("verifies")
			}
			msg := err.Error()
			if byteSlice.MatchString(msg) || strings.Contains(msg, "\n") {
				t.Errorf("error prints a root as a Go byte slice: %q", msg)
			}
			if !strings.Contains(msg, "calculated root") || len(hexRoot.FindAllString(msg, -1)) < 2 {
				t.Errorf("error does not name the calculated and the expected root in hex: %q", msg)
			}
			if want != (record.Hash{}) && !strings.Contains(msg, "expected root "+want.String()) {
				t.Errorf("error does not name the checkpoint's root %s as expected: %q", want, msg)
			}
		})
	}
}

func blockRoot(t *testing.T, raw []byte) record.Hash {
	t.Helper()
	b, err := record.DecodeBlock(raw)
	if err != nil {
		t.Fatal(err)
	}
	return b.Checkpoint.Root
}
