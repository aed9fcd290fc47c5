package proofs_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/affine-ledger/ledger/verify/proofs"
)

// FuzzReadProof: no file makes the reader or the checks panic, and a proof
// the reader accepts is written back (as ledger prove writes it) to a file
// that reads as the same proof. The seeds are spec/proofs.md's vectors,
// valid proofs and forgeries, and spec/ledger.md's fork proofs.
func FuzzReadProof(f *testing.F) {
	for _, name := range []string{"proof-inclusion.json", "proof-consistency.json"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "spec", "vectors", name))
		if err != nil {
			f.Fatal(err)
		}
		var v struct {
			Cases []struct {
				Proof json.RawMessage `json:"proof"`
			} `json:"cases"`
		}
		if err := json.Unmarshal(data, &v); err != nil {
			f.Fatal(err)
		}
		if len(v.Cases) == 0 {
			f.Fatalf("%s: no cases", name)
		}
		for _, c := range v.Cases {
			f.Add([]byte(c.Proof))
		}
	}
	for _, raw := range forkVectors(f) {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := proofs.ReadProof(bytes.NewReader(data))
		if err != nil {
			return
		}
		proofs.VerifyProof(p)
		if fp, ok := p.(*proofs.ForkProof); ok {
			// A fork proof file is the record: read only in its one
			// canonical encoding.
			again, _, err := fp.Encode()
			if err != nil || !bytes.Equal(again, data) {
				t.Fatalf("%x reads as a fork proof that encodes as %x (%v)", data, again, err)
			}
			return
		}
		again, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := proofs.ReadProof(bytes.NewReader(again))
		if err != nil {
			t.Fatalf("%s, written back as %s: %v", data, again, err)
		}
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("%s reads as %+v, written back as %s reads as %+v", data, p, again, q)
		}
	})
}
