package verify_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/internal/golden"
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
	// Reject are files that break one rule of spec/proofs.md each, built
	// from the first case (proof_reject_test.go).
	Reject []proofReject `json:"reject"`
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
		if err := checkCase(c); err != nil {
			t.Fatal(err)
		}
	}
}

// checkCase says how c fails to verify or fail as it states, nil if it
// does as stated.
func checkCase(c proofCase) error {
	p, err := proofs.ReadProof(bytes.NewReader(c.Proof))
	if err != nil {
		return fmt.Errorf("%s: read: %v", c.Name, err)
	}
	got, err := proofs.VerifyProof(p)
	if c.OK {
		if err != nil {
			return fmt.Errorf("%s: %v", c.Name, err)
		}
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(c.Proves)
		if !bytes.Equal(gj, wj) {
			return fmt.Errorf("%s: proves %s, want %s", c.Name, gj, wj)
		}
		return nil
	}
	if err == nil || !errors.Is(err, proofs.ErrProof) || !strings.Contains(err.Error(), c.Error) {
		return fmt.Errorf("%s: error %v, want one with %q", c.Name, err, c.Error)
	}
	return nil
}

// casesHold reports whether every case verifies or fails as it states.
func casesHold(cases []proofCase) bool {
	for _, c := range cases {
		if checkCase(c) != nil {
			return false
		}
	}
	return len(cases) > 0
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

// TestProofVectors checks spec/vectors/proof-*.json: the cases verify or
// fail as stated, and the reject cases are those this code builds from the
// file's valid proof, each refused for its rule. LEDGER_UPDATE_VECTORS=1
// rewrites a file's cases from a fresh ledger only if its stored cases no
// longer verify or fail as they state (signatures are randomized, so every
// proof changes then), and its reject cases from its valid proof;
// LEDGER_UPDATE_VECTORS=reject rewrites only the reject cases, from the
// files' valid proofs, keeping every other byte.
func TestProofVectors(t *testing.T) {
	type generator struct {
		cases   func(*testing.T, *ledger.Store, *keys.Hotkey) []proofCase
		rejects func(t *testing.T, valid any, stored []proofReject, update bool) []proofReject
	}
	files := map[string]generator{
		"proof-inclusion.json": {inclusionCases, func(t *testing.T, valid any, stored []proofReject, update bool) []proofReject {
			return inclusionRejects(t, valid.(*proofs.InclusionProof), stored, update)
		}},
		"proof-consistency.json": {consistencyCases, func(t *testing.T, valid any, stored []proofReject, update bool) []proofReject {
			return consistencyRejects(t, valid.(*proofs.ConsistencyProof), stored, update)
		}},
	}
	descs := map[string]string{
		"proof-inclusion.json":   "Inclusion proofs (spec/proofs.md): a valid proof of leaf 6 in a log of 15, and forgeries that must fail with an error containing the given text.",
		"proof-consistency.json": "Consistency proofs (spec/proofs.md): a valid proof from height 0 (size 5) to height 2 (size 15), and forgeries that must fail.",
	}
	update := os.Getenv(golden.UpdateEnv)
	var s *ledger.Store
	var k *keys.Hotkey
	if update == "1" {
		s, k = proofLedger(t)
	}
	for name, gen := range files {
		path := filepath.Join("..", "spec", "vectors", name)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var v proofVectors
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		// Signatures are randomized and the ledger's times are the
		// clock's: proofs built afresh differ in every byte. The stored
		// ones are kept while they hold, so that rewriting the vectors
		// after a change elsewhere leaves these as they are.
		if update == "1" && !casesHold(v.Cases) {
			v = proofVectors{Description: descs[name], Cases: gen.cases(t, s, k), Reject: v.Reject}
		}
		if len(v.Cases) < 4 || !v.Cases[0].OK {
			t.Fatalf("%s: %d cases", name, len(v.Cases))
		}
		valid, err := proofs.ReadProof(bytes.NewReader(v.Cases[0].Proof))
		if err != nil {
			t.Fatalf("%s: the valid case: %v", name, err)
		}
		rejects := gen.rejects(t, valid, v.Reject, update != "")
		if update != "" {
			v.Reject = rejects
			out, err := json.MarshalIndent(v, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, append(out, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := json.Marshal(rejects)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(v.Reject)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the reject cases differ from those this code builds from the valid proof; if a rule changed on purpose, update spec/proofs.md and rewrite them with %s=reject", name, golden.UpdateEnv)
		}
		checkCases(t, v.Cases)
		compact, err := json.Marshal(valid)
		if err != nil {
			t.Fatal(err)
		}
		checkProofRejects(t, name, compact, v.Reject)
	}
}
