package verify_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/proofs"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// proofCase is one entry of spec/vectors/proof-*.json.
type proofCase struct {
	Name  string          `json:"name"`
	Proof json.RawMessage `json:"proof"`
	// OK with Proves, or an error containing Error.
	OK     bool           `json:"ok"`
	Proves *proofs.Proved `json:"proves,omitempty"`
	Error  string         `json:"error,omitempty"`
}

type proofVectors struct {
	Description string      `json:"description"`
	Cases       []proofCase `json:"cases"`
}

// proofLedger is a ledger of 3 blocks of 5 transcripts for validator 0.
func proofLedger(t *testing.T) (*ledger.Store, *keys.Hotkey) {
	t.Helper()
	s := open(t, t.TempDir())
	t.Cleanup(func() { s.Close() })
	ks, err := verifytest.Build(s, verifytest.Spec{Validators: 1, Blocks: 3, PerBlock: 5, Envs: []string{"mult8"}})
	if err != nil {
		t.Fatal(err)
	}
	return s, ks[0]
}

// inclusionCases builds a valid proof of leaf 6 and its forgeries.
func inclusionCases(t *testing.T, s *ledger.Store, k *keys.Hotkey) []proofCase {
	var target ledger.TranscriptRef
	for r, err := range s.Leaves(k.Public(), 6) {
		if err != nil {
			t.Fatal(err)
		}
		target = r
		break
	}
	p, err := verify.ProveInclusion(s, target.CID)
	if err != nil {
		t.Fatal(err)
	}
	proves, err := p.Verify()
	if err != nil {
		t.Fatal(err)
	}
	forge := func(edit func(p *proofs.InclusionProof)) proofs.InclusionProof {
		q := *p
		q.Hashes = append([]record.Hash(nil), p.Hashes...)
		q.Transcript = append([]byte(nil), p.Transcript...)
		edit(&q)
		return q
	}
	blk, err := record.DecodeBlock(p.Block)
	if err != nil {
		t.Fatal(err)
	}
	return []proofCase{
		mk(t, "valid", p, true, &proves, ""),
		mk(t, "modified transcript", forge(func(q *proofs.InclusionProof) {
			var tr record.Transcript
			codec.Unmarshal(q.Transcript, &tr)
			tr.Reward++
			q.Transcript, _ = codec.Marshal(&tr)
		}), false, nil, "hash to"),
		mk(t, "modified transcript with its CID", forge(func(q *proofs.InclusionProof) {
			var tr record.Transcript
			codec.Unmarshal(q.Transcript, &tr)
			tr.Reward++
			q.Transcript, _ = codec.Marshal(&tr)
			q.CID = codec.Sum(q.Transcript).String()
		}), false, nil, "leaf 6 of 15"),
		mk(t, "wrong leaf index", forge(func(q *proofs.InclusionProof) { q.LeafIndex = 7 }), false, nil, "leaf 7 of 15"),
		mk(t, "altered path", forge(func(q *proofs.InclusionProof) { q.Hashes[0][0] ^= 1 }), false, nil, "leaf 6 of 15"),
		mk(t, "short path", forge(func(q *proofs.InclusionProof) { q.Hashes = q.Hashes[1:] }), false, nil, "leaf 6 of 15"),
		mk(t, "tree size", forge(func(q *proofs.InclusionProof) { q.TreeSize = 16 }), false, nil, "tree size 16"),
		mk(t, "root changed, not re-signed", forge(func(q *proofs.InclusionProof) {
			b := *blk
			b.Checkpoint.Root[0] ^= 1
			q.Block, _ = codec.Marshal(&b)
		}), false, nil, "bad signature"),
		mk(t, "wrong root signed by the validator", forge(func(q *proofs.InclusionProof) {
			h := blk.Header
			h.Checkpoint.Root[0] ^= 1
			_, q.Block, _, err = record.Sign(h, k)
			if err != nil {
				t.Fatal(err)
			}
		}), false, nil, "calculated root"),
	}
}

func consistencyCases(t *testing.T, s *ledger.Store, k *keys.Hotkey) []proofCase {
	p, err := verify.ProveConsistency(s, k.Public(), 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	proves, err := p.Verify()
	if err != nil {
		t.Fatal(err)
	}
	forge := func(edit func(p *proofs.ConsistencyProof)) proofs.ConsistencyProof {
		q := *p
		q.Hashes = append([]record.Hash(nil), p.Hashes...)
		edit(&q)
		return q
	}
	newer, err := record.DecodeBlock(p.Newer)
	if err != nil {
		t.Fatal(err)
	}
	return []proofCase{
		mk(t, "valid", p, true, &proves, ""),
		mk(t, "altered proof", forge(func(q *proofs.ConsistencyProof) { q.Hashes[0][0] ^= 1 }), false, nil, "size 5 to 15"),
		mk(t, "swapped blocks", forge(func(q *proofs.ConsistencyProof) { q.Older, q.Newer = q.Newer, q.Older }), false, nil, "above the newer"),
		mk(t, "wrong root signed by the validator", forge(func(q *proofs.ConsistencyProof) {
			h := newer.Header
			h.Checkpoint.Root[0] ^= 1
			_, q.Newer, _, err = record.Sign(h, k)
			if err != nil {
				t.Fatal(err)
			}
		}), false, nil, "size 5 to 15"),
	}
}

func mk(t *testing.T, name string, p any, ok bool, proves *proofs.Proved, want string) proofCase {
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return proofCase{Name: name, Proof: raw, OK: ok, Proves: proves, Error: want}
}

func checkCases(t *testing.T, cases []proofCase) {
	t.Helper()
	for _, c := range cases {
		p, err := proofs.ReadProof(bytes.NewReader(c.Proof))
		if err != nil {
			t.Fatalf("%s: read: %v", c.Name, err)
		}
		got, err := proofs.VerifyProof(p)
		if c.OK {
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(c.Proves)
			if !bytes.Equal(gj, wj) {
				t.Fatalf("%s: proves %s, want %s", c.Name, gj, wj)
			}
			continue
		}
		if err == nil || !errors.Is(err, proofs.ErrProof) || !strings.Contains(err.Error(), c.Error) {
			t.Fatalf("%s: error %v, want one with %q", c.Name, err, c.Error)
		}
	}
}

func TestProofs(t *testing.T) {
	t.Parallel()
	s, k := proofLedger(t)
	checkCases(t, inclusionCases(t, s, k))
	checkCases(t, consistencyCases(t, s, k))
	// Every transcript and every pair of heights proves.
	for r, err := range s.Leaves(k.Public(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		if _, err := verify.ProveInclusion(s, r.CID); err != nil {
			t.Fatalf("leaf %d: %v", r.Leaf, err)
		}
	}
	for from := uint64(0); from < 3; from++ {
		for to := from; to < 3; to++ {
			if _, err := verify.ProveConsistency(s, k.Public(), from, to); err != nil {
				t.Fatalf("%d..%d: %v", from, to, err)
			}
		}
	}
}

// TestProofVectors checks spec/vectors/proof-*.json; LEDGER_UPDATE_VECTORS=1
// rewrites them from a fresh ledger (signatures are randomized, so the
// files change then).
func TestProofVectors(t *testing.T) {
	files := map[string]func(*testing.T, *ledger.Store, *keys.Hotkey) []proofCase{
		"proof-inclusion.json":   inclusionCases,
		"proof-consistency.json": consistencyCases,
	}
	descs := map[string]string{
		"proof-inclusion.json":   "Inclusion proofs (spec/proofs.md): a valid proof of leaf 6 in a log of 15, and forgeries that must fail with an error containing the given text.",
		"proof-consistency.json": "Consistency proofs (spec/proofs.md): a valid proof from height 0 (size 5) to height 2 (size 15), and forgeries that must fail.",
	}
	if os.Getenv("LEDGER_UPDATE_VECTORS") != "" {
		s, k := proofLedger(t)
		for name, gen := range files {
			out, err := json.MarshalIndent(proofVectors{Description: descs[name], Cases: gen(t, s, k)}, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join("..", "spec", "vectors", name), append(out, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name := range files {
		data, err := os.ReadFile(filepath.Join("..", "spec", "vectors", name))
		if err != nil {
			t.Fatal(err)
		}
		var v proofVectors
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		if len(v.Cases) < 4 || !v.Cases[0].OK {
			t.Fatalf("%s: %d cases", name, len(v.Cases))
		}
		checkCases(t, v.Cases)
	}
}
