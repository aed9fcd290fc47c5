package proofs_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/verify/proofs"
)

// validVectors returns the proof of the case named "valid" of each of
// spec/proofs.md's vector files.
func validVectors(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, name := range []string{"proof-inclusion.json", "proof-consistency.json"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "spec", "vectors", name))
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			Cases []struct {
				Name  string          `json:"name"`
				Proof json.RawMessage `json:"proof"`
			} `json:"cases"`
		}
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		for _, c := range v.Cases {
			if c.Name == "valid" {
				out[name] = c.Proof
			}
		}
		if out[name] == nil {
			t.Fatalf("%s: no valid case", name)
		}
	}
	return out
}

// TestProofFileBound: a valid proof padded with JSON white space to exactly
// MaxProofFile bytes is read and verifies; one byte more is refused,
// naming the bound.
func TestProofFileBound(t *testing.T) {
	for name, proof := range validVectors(t) {
		t.Run(name, func(t *testing.T) {
			exact := append(bytes.Clone(proof), bytes.Repeat([]byte{' '}, proofs.MaxProofFile-len(proof))...)
			p, err := proofs.ReadProof(bytes.NewReader(exact))
			if err != nil {
				t.Fatalf("proof file of exactly %d bytes: %v", proofs.MaxProofFile, err)
			}
			if _, err := proofs.VerifyProof(p); err != nil {
				t.Fatalf("proof file of exactly %d bytes: %v", proofs.MaxProofFile, err)
			}
			_, err = proofs.ReadProof(bytes.NewReader(append(exact, ' ')))
			if want := fmt.Sprintf("more than %d bytes", proofs.MaxProofFile); !errors.Is(err, proofs.ErrProofFormat) || !strings.Contains(err.Error(), want) {
				t.Fatalf("proof file of %d bytes: err = %v, want ErrProofFormat naming %q", proofs.MaxProofFile+1, err, want)
			}
		})
	}
}

// TestProofFileHoldsTheLargestProofs: MaxProofFile has room for the
// largest proofs the records allow, written as `ledger prove` and `ledger
// consistency` write them (indented): a transcript of
// record.MaxTranscriptBytes and a block of record.MaxBlockBytes, or two
// such blocks, with 128 hashes each (more than the audit or consistency
// path of a log of fewer than 2^64 leaves can hold).
func TestProofFileHoldsTheLargestProofs(t *testing.T) {
	hashes := make([]record.Hash, 128)
	block := make([]byte, record.MaxBlockBytes)
	transcript := make([]byte, record.MaxTranscriptBytes)
	for _, p := range []any{
		&proofs.InclusionProof{
			Type: proofs.InclusionType, Transcript: transcript, CID: codec.Sum(transcript).String(),
			LeafIndex: math.MaxUint64 - 1, TreeSize: math.MaxUint64, Hashes: hashes, Block: block,
		},
		&proofs.ConsistencyProof{Type: proofs.ConsistencyType, Older: block, Newer: block, Hashes: hashes},
	} {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		if err := enc.Encode(p); err != nil {
			t.Fatal(err)
		}
		n := buf.Len()
		if _, err := proofs.ReadProof(&buf); err != nil {
			t.Fatalf("%T of %d bytes: %v", p, n, err)
		}
		t.Logf("largest %T: %d bytes of %d", p, n, proofs.MaxProofFile)
	}
}

// TestForkProofFileBound: a fork proof file (a CBOR map) is held to the
// record's bound, MaxForkProofBytes, not to MaxProofFile: padded to
// exactly the bound it is parsed (and refused for the padding), one byte
// more is refused by size.
func TestForkProofFileBound(t *testing.T) {
	proof := forkVectors(t)[0]
	exact := append(bytes.Clone(proof), make([]byte, record.MaxForkProofBytes-len(proof))...)
	_, err := proofs.ReadProof(bytes.NewReader(exact))
	if !errors.Is(err, proofs.ErrProofFormat) || !strings.Contains(err.Error(), "trailing bytes") {
		t.Fatalf("fork proof padded to exactly %d bytes: err = %v, want the padding refused as trailing bytes", record.MaxForkProofBytes, err)
	}
	_, err = proofs.ReadProof(bytes.NewReader(append(exact, 0)))
	if want := fmt.Sprintf("max %d", record.MaxForkProofBytes); !errors.Is(err, proofs.ErrProofFormat) || !strings.Contains(err.Error(), want) {
		t.Fatalf("fork proof of %d bytes: err = %v, want ErrProofFormat naming %q", record.MaxForkProofBytes+1, err, want)
	}
}

// TestReadProofOfNothing: a file with no proof in it (empty, white space,
// JSON that is not an object, an object with no type) is refused, saying
// which.
func TestReadProofOfNothing(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"", "the file is empty or white space"},
		{" \n\t", "the file is empty or white space"},
		{"null", "not a JSON object"},
		{"[]", "not a JSON object"},
		{"{}", `no member "type"`},
	} {
		if _, err := proofs.ReadProof(strings.NewReader(tc.file)); !errors.Is(err, proofs.ErrProofFormat) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want ErrProofFormat saying %q", tc.file, err, tc.want)
		}
	}
}
