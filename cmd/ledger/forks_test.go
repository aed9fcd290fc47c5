package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// forkedLedger is builtLedger whose validator 0 signed a second block at
// height 0: the store keeps the fork proof. It returns the directory and
// the proof's CID.
func forkedLedger(t *testing.T) (string, string) {
	t.Helper()
	dir, _ := builtLedger(t)
	s, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	k := verifytest.Key(0)
	_, raw, _, err := record.Sign(record.Header{Format: record.BlockFormat, Net: recordtest.Network, Validator: k.Public(), TimeMS: 1,
		Anchor: recordtest.Anchor(1), Checkpoint: record.Checkpoint{Root: record.EmptyRoot()}}, k)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(raw, nil); !errors.Is(err, ledger.ErrEquivocation) {
		t.Fatalf("put a second block at height 0: %v, want equivocation", err)
	}
	var fork string
	for p, err := range s.ForkProofs() {
		if err != nil {
			t.Fatal(err)
		}
		fork = p.CID.String()
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if fork == "" {
		t.Fatal("the store kept no fork proof")
	}
	return dir, fork
}

type forksOutput struct {
	ForkProofs []forkRow `json:"fork_proofs"`
}

func runForks(t *testing.T, args ...string) (int, forksOutput, string) {
	t.Helper()
	code, out, errs := ledgerRun(t, append([]string{"forks", "--json"}, args...)...)
	var res forksOutput
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("forks --json %v: exit %d, %v: %q %q", args, code, err, out, errs)
	}
	return code, res, errs
}

// TestForksCommand lists the fork proof of a store that holds one, and
// none of a store that holds none or of another validator.
func TestForksCommand(t *testing.T) {
	t.Parallel()
	dir, fork := forkedLedger(t)
	v := verifytest.Key(0).Public()
	code, res, errs := runForks(t, "--data", dir)
	if code != exitOK || len(res.ForkProofs) != 1 {
		t.Fatalf("forks: exit %d, %+v, %q; want one fork proof", code, res, errs)
	}
	r := res.ForkProofs[0]
	if r.CID != fork || r.Validator != v || r.Height != 0 || r.Format != record.ForkProofFormat || !r.Valid || !r.ProvesEquivocation ||
		r.Network == nil || *r.Network != recordtest.Network || r.A == "" || r.B == "" || r.A == r.B || r.Error != "" {
		t.Errorf("row %+v: want proof %s of %s at height 0, format 2, of %s", r, fork, v, recordtest.Network)
	}
	code, out, _ := ledgerRun(t, "forks", "--data", dir)
	if code != exitOK || !strings.Contains(out, fork) || !strings.Contains(out, r.A) || !strings.Contains(out, r.B) || !strings.Contains(out, "yes") {
		t.Errorf("forks table: exit %d, %q", code, out)
	}

	code, res, errs = runForks(t, "--data", dir, "--validator", verifytest.Key(1).Public().String())
	if code != exitOK || len(res.ForkProofs) != 0 {
		t.Errorf("forks of validator 1: exit %d, %+v, %q; want none", code, res, errs)
	}
	clean, _ := builtLedger(t)
	code, res, _ = runForks(t, "--data", clean)
	if code != exitOK || res.ForkProofs == nil || len(res.ForkProofs) != 0 {
		t.Errorf("forks of a store without: exit %d, %+v; want an empty list", code, res)
	}
	code, out, errs = ledgerRun(t, "forks", "--data", clean)
	if code != exitOK || !strings.Contains(errs, "no fork proofs in this store") || strings.Count(out, "\n") != 1 {
		t.Errorf("forks table of a store without: exit %d, %q, %q", code, out, errs)
	}
	for _, args := range [][]string{{"forks"}, {"forks", "--data", dir, "--validator", "5nope"}, {"forks", "--data", dir, "--validator", ""}} {
		if code, _, errs := ledgerRun(t, args...); code != exitUsage || errs == "" {
			t.Errorf("%v: exit %d, %q; want 2", args, code, errs)
		}
	}
}

// TestProveForkVerifyProof exports the fork proof and checks it offline:
// the file is the record (its bytes hash to its CID), verify-proof says
// what it proves, holds it to an asserted network, and refuses altered
// copies without panicking.
func TestProveForkVerifyProof(t *testing.T) {
	t.Parallel()
	dir, fork := forkedLedger(t)
	file := filepath.Join(t.TempDir(), "fork.cbor")
	if code, out, errs := ledgerRun(t, "prove", "--data", dir, "--fork", fork, "--out", file); code != exitOK || out != "" {
		t.Fatalf("prove --fork: exit %d, %q, %q", code, out, errs)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := codec.Sum(raw).String(); got != fork {
		t.Fatalf("the file's CID is %s, want %s", got, fork)
	}
	// Standard output, as prove writes a JSON proof there.
	if code, out, errs := ledgerRun(t, "prove", "--data", dir, "--fork", fork); code != exitOK || out != string(raw) {
		t.Errorf("prove --fork to standard output: exit %d, %d bytes, %q", code, len(out), errs)
	}

	v := verifytest.Key(0).Public().String()
	genesis := recordtest.Network.Genesis.String()
	code, out, errs := ledgerRun(t, "verify-proof", file)
	if code != exitOK || !strings.Contains(out, "fork proof "+fork) || !strings.Contains(out, "validator "+v) || !strings.Contains(out, "height 0") ||
		!strings.Contains(out, "netuid 1 of the chain of genesis hash "+genesis) || !strings.Contains(out, "equivocated") {
		t.Errorf("verify-proof: exit %d, %q, %q", code, out, errs)
	}
	code, out, _ = ledgerRun(t, "verify-proof", "--json", "--genesis", genesis, "--netuid", "1", file)
	var res struct {
		OK     bool           `json:"ok"`
		Error  string         `json:"error"`
		Proves map[string]any `json:"proves"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != exitOK || !res.OK {
		t.Fatalf("verify-proof --json --genesis --netuid: exit %d, %q", code, out)
	}
	p := res.Proves
	if p["type"] != "affine-ledger/fork-proof" || p["fork"] != fork || p["validator"] != v || p["height"] != 0.0 || p["format"] != 2.0 ||
		p["proves_equivocation"] != true || p["block"] == p["other_block"] || p["other_block"] == nil {
		t.Errorf("proves %v", p)
	}
	if net, _ := p["network"].(map[string]any); net["genesis"] != genesis || net["netuid"] != 1.0 {
		t.Errorf("proves network %v, want %s", p["network"], recordtest.Network)
	}
	if _, ok := p["checkpoint"]; ok {
		t.Errorf("a fork proof has no one checkpoint, proves names one: %v", p)
	}

	other := strings.Repeat("ab", 32)
	for _, args := range [][]string{{"--genesis", other}, {"--genesis", other, "--netuid", "1"}} {
		code, out, errs := ledgerRun(t, append(append([]string{"verify-proof"}, args...), file)...)
		if code != exitCheckFail || out != "" || !strings.Contains(errs, genesis) || !strings.Contains(errs, other) {
			t.Errorf("verify-proof %v: exit %d, %q, %q; want 1 naming both genesis hashes", args, code, out, errs)
		}
	}
	if code, _, errs := ledgerRun(t, "verify-proof", "--netuid", "2", file); code != exitCheckFail || !strings.Contains(errs, "netuid 1 of") || !strings.Contains(errs, "netuid 2 of any chain") {
		t.Errorf("verify-proof --netuid 2: exit %d, %q; want 1 naming both subnets", code, errs)
	}

	// Every altered byte fails, with a message, and no panic: in the
	// framing the file is no fork proof (2), in a block it does not verify
	// (1).
	seen := map[int]bool{}
	for i := 0; i < len(raw); i += 7 {
		bad := append([]byte(nil), raw...)
		bad[i] ^= 0x01
		alt := filepath.Join(t.TempDir(), "bad.cbor")
		if err := os.WriteFile(alt, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, errs := ledgerRun(t, "verify-proof", alt)
		seen[code] = true
		if (code != exitCheckFail && code != exitUsage) || out != "" || !strings.HasPrefix(errs, "ledger: ") {
			t.Fatalf("byte %d flipped: exit %d, %q, %q; want 1 or 2 with a message", i, code, out, errs)
		}
		if code == exitUsage && !strings.Contains(errs, "not a proof file") {
			t.Errorf("byte %d flipped: %q, want it to say the file is no proof", i, errs)
		}
	}
	if !seen[exitCheckFail] || !seen[exitUsage] {
		t.Errorf("flipped bytes gave exit codes %v; want both a failed check and no proof", seen)
	}
}

// TestVerifyProofForkVectors: the fork proofs of spec/vectors/ledger.json,
// of format 2 and 1, as files: the first proves equivocation, the second
// verifies but proves none, and the check says so (exit 1).
func TestVerifyProofForkVectors(t *testing.T) {
	t.Parallel()
	for _, vec := range recordtest.ForkProofVectors(t) {
		file := filepath.Join(t.TempDir(), "fork.cbor")
		if err := os.WriteFile(file, vec.Raw, 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, errs := ledgerRun(t, "verify-proof", file)
		switch {
		case vec.ProvesEquivocation:
			if code != exitOK || !strings.Contains(out, vec.CID) {
				t.Errorf("format %d vector: exit %d, %q, %q; want 0", vec.Format, code, out, errs)
			}
		default:
			if code != exitCheckFail || out != "" || !strings.Contains(errs, "format 1") || !strings.Contains(errs, "proves no equivocation") {
				t.Errorf("format %d vector: exit %d, %q, %q; want 1 saying it proves no equivocation", vec.Format, code, out, errs)
			}
			code, out, _ := ledgerRun(t, "verify-proof", "--json", file)
			var res struct {
				OK     bool           `json:"ok"`
				Error  string         `json:"error"`
				Proves map[string]any `json:"proves"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil || code != exitCheckFail || res.OK || !strings.Contains(res.Error, "proves no equivocation") ||
				res.Proves["proves_equivocation"] != false || res.Proves["format"] != 1.0 || res.Proves["fork"] != vec.CID {
				t.Errorf("format 1 vector --json: exit %d, %s", code, out)
			}
			if _, ok := res.Proves["network"]; ok {
				t.Errorf("format 1 vector --json names a network: %s", out)
			}
		}
	}
}

// TestProveForkUsage: --fork is bad usage with --transcript, with a CID
// that is no fork proof of the store, or that is no CID.
func TestProveForkUsage(t *testing.T) {
	t.Parallel()
	dir, fork := forkedLedger(t)
	b0, err := blockCID(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--fork", fork, "--transcript", fork}, "one of --transcript and --fork"},
		{[]string{"--fork", b0}, "no fork proof " + b0},
		{[]string{"--fork", "bafy-nope"}, "--fork: "},
	} {
		out := filepath.Join(t.TempDir(), "f.cbor")
		code, _, errs := ledgerRun(t, append([]string{"prove", "--data", dir, "--out", out}, tc.args...)...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("prove %v: exit %d, %q; want 2 saying %q", tc.args, code, errs, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("prove %v left %s", tc.args, out)
		}
	}
}

// blockCID is the CID of validator 0's block at height 0 in the closed
// store at dir.
func blockCID(dir string) (string, error) {
	s, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
	if err != nil {
		return "", err
	}
	defer s.Close()
	b, err := s.BlockAt(verifytest.Key(0).Public(), 0)
	if err != nil {
		return "", err
	}
	return b.CID.String(), nil
}

// TestForksFormat1: a store written before block format 2 lists its
// format-1 proof as proving nothing and naming no network; exported, it
// verifies, and verify-proof fails it saying it proves no equivocation.
func TestForksFormat1(t *testing.T) {
	t.Parallel()
	dir, _, _ := legacyForkStore(t)
	code, res, errs := runForks(t, "--data", dir)
	if code != exitOK || len(res.ForkProofs) != 1 {
		t.Fatalf("forks: exit %d, %+v, %q", code, res, errs)
	}
	r := res.ForkProofs[0]
	if r.Format != record.ForkProofFormatV1 || !r.Valid || r.ProvesEquivocation || r.Network != nil {
		t.Errorf("format-1 row %+v", r)
	}
	file := filepath.Join(t.TempDir(), "fork.cbor")
	if code, _, errs := ledgerRun(t, "prove", "--data", dir, "--fork", r.CID, "--out", file); code != exitOK {
		t.Fatalf("prove --fork: exit %d, %q", code, errs)
	}
	code, out, errs := ledgerRun(t, "verify-proof", file)
	if code != exitCheckFail || out != "" || !strings.Contains(errs, "proves no equivocation") {
		t.Errorf("verify-proof of the format-1 proof: exit %d, %q, %q", code, out, errs)
	}
}
