package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// ledgerRun runs one command line and returns exit code and outputs.
func ledgerRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// minerRows is `ledger transcripts --json` of miner in the store at dir:
// at least one row, or the test fails.
func minerRows(t *testing.T, dir, miner string) []minerTranscript {
	t.Helper()
	code, out, errs := ledgerRun(t, "transcripts", "--data", dir, "--miner", miner, "--json")
	var rows []minerTranscript
	if err := json.Unmarshal([]byte(out), &rows); code != 0 || err != nil || len(rows) == 0 {
		t.Fatalf("transcripts: exit %d, %v: %s %s", code, err, out, errs)
	}
	return rows
}

// builtLedger builds a small ledger of 2 validators x 3 blocks x 4
// transcripts with decisions, closed, and returns its directory.
func builtLedger(t *testing.T) (string, verifytest.Spec) {
	t.Helper()
	spec := verifytest.Spec{Validators: 2, Blocks: 3, PerBlock: 4, Decisions: true}
	dir, _ := storeOf(t, &spec)
	return dir, spec
}

// storeOf writes a closed store of recordtest.Network holding spec's
// chains (none for a nil spec) and returns its directory and the
// validators' keys.
func storeOf(t *testing.T, spec *verifytest.Spec) (string, []*keys.Hotkey) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	s, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	var ks []*keys.Hotkey
	if spec != nil {
		if ks, err = verifytest.Build(s, *spec); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, ks
}

func TestVerifyCommand(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	code, out, errs := ledgerRun(t, "verify", "--data", dir, "--json")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d: %s, stderr (no progress bar in a pipe): %q", code, out, errs)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"ok", "chains", "blocks", "transcripts", "bytes", "seconds", "failures"} {
		if _, ok := rep[k]; !ok {
			t.Fatalf("JSON lacks %q: %s", k, out)
		}
	}
	if rep["ok"] != true || rep["chains"] != 2.0 || rep["blocks"] != 6.0 || rep["transcripts"] != 24.0 || len(rep["failures"].([]any)) != 0 {
		t.Fatalf("report %s", out)
	}

	// Tamper with validator 0's block 1, transcript 3.
	v := verifytest.Key(0).Public()
	raw, ok, err := ledgertest.Get(dir, ledgertest.BlockKey(v, 1))
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	_, bc, _ := cidFromBytes(raw)
	blockRaw, _, _ := ledgertest.Get(dir, ledgertest.ObjectKey(bc))
	blk, err := record.DecodeBlock(blockRaw)
	if err != nil {
		t.Fatal(err)
	}
	tc := blk.Transcripts[3].Cid
	tr, _, _ := ledgertest.Get(dir, ledgertest.ObjectKey(tc))
	var doc record.Transcript
	if err := codec.Unmarshal(tr, &doc); err != nil {
		t.Fatal(err)
	}
	doc.Reward = 1 - doc.Reward
	tampered, _ := codec.Marshal(&doc)
	if err := ledgertest.OverwriteObject(dir, tc, tampered); err != nil {
		t.Fatal(err)
	}
	code, out, _ = ledgerRun(t, "verify", "--data", dir, "--json", "--no-reexec")
	if code != 1 {
		t.Fatalf("tampered: exit %d: %s", code, out)
	}
	var bad struct {
		OK       bool `json:"ok"`
		Failures []struct {
			Validator  string `json:"validator"`
			Height     uint64 `json:"height"`
			CID        string `json:"cid"`
			Transcript int    `json:"transcript"`
			Reason     string `json:"reason"`
		} `json:"failures"`
	}
	if err := json.Unmarshal([]byte(out), &bad); err != nil {
		t.Fatal(err)
	}
	if bad.OK || len(bad.Failures) != 1 {
		t.Fatalf("tampered report %s", out)
	}
	f := bad.Failures[0]
	if f.Validator != v.String() || f.Height != 1 || f.CID != bc.String() || f.Transcript != 3 || !strings.Contains(f.Reason, tc.String()) {
		t.Fatalf("failure %+v", f)
	}
	// The text form names the same.
	code, out, _ = ledgerRun(t, "verify", "--data", dir)
	if code != 1 || !strings.Contains(out, "FAIL validator "+v.String()+" height 1 block "+bc.String()+" transcript 3") {
		t.Fatalf("text output (exit %d): %s", code, out)
	}
}

// TestVerifyTamperedHead: a head block changed behind the store's back
// makes the store refuse to open; verify reports that as a failure (1).
func TestVerifyTamperedHead(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	v := verifytest.Key(1).Public()
	raw, _, err := ledgertest.Get(dir, ledgertest.HeadKey(v))
	if err != nil {
		t.Fatal(err)
	}
	_, hc, err := cidFromBytes(raw)
	if err != nil {
		t.Fatal(err)
	}
	blockRaw, _, _ := ledgertest.Get(dir, ledgertest.ObjectKey(hc))
	var b record.Block
	if err := codec.Unmarshal(blockRaw, &b); err != nil {
		t.Fatal(err)
	}
	b.TimeMS++
	tampered, _ := codec.Marshal(&b)
	if err := ledgertest.OverwriteObject(dir, hc, tampered); err != nil {
		t.Fatal(err)
	}
	code, out, _ := ledgerRun(t, "verify", "--data", dir, "--json")
	if code != 1 || !strings.Contains(out, `"ok": false`) || !strings.Contains(out, v.String()) {
		t.Fatalf("exit %d: %s", code, out)
	}
}

func TestVerifyUsage(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	empty := t.TempDir()
	for _, args := range [][]string{
		{"verify"},
		{"verify", "--data", dir, "--car", "x.car"},
		{"verify", "--data", filepath.Join(empty, "missing")},
		{"verify", "--data", empty},
		{"verify", "--data", dir, "--validator", "not-an-address"},
		{"verify", "--data", dir, "--validator", verifytest.Key(9).Public().String()},
		{"verify", "--car", filepath.Join(empty, "missing.car")},
		{"verify", "--car", writeFile(t, "garbage")},
		{"verify-proof", writeFile(t, "{}")},
		{"prove", "--data", dir},
		{"consistency", "--data", dir, "--validator", verifytest.Key(0).Public().String(), "--from", "2", "--to", "1"},
		{"import", "--data", empty, "--car", writeFile(t, "not a car")},
	} {
		if code, out, errs := ledgerRun(t, args...); code != 2 {
			t.Fatalf("%v: exit %d, want 2: %s %s", args, code, out, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(empty, "missing")); err == nil {
		t.Fatal("verify created a store")
	}
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExportVerifyImport runs export, verify --car, import and verify
// --data, with the archive named on the command line and on standard
// input; and verify --car and import of a damaged copy, which must fail.
func TestExportVerifyImport(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	car := filepath.Join(t.TempDir(), "l.car")
	if code, out, errs := ledgerRun(t, "export", "--data", dir, "--out", car); code != 0 {
		t.Fatalf("export: %d %s %s", code, out, errs)
	}
	data, err := os.ReadFile(car)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 1
	bad := filepath.Join(t.TempDir(), "bad.car")
	if err := os.WriteFile(bad, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, viaStdin := range []bool{false, true} {
		// withCar runs the command with --car naming path, or "-" and path
		// opened as standard input.
		withCar := func(path string, args ...string) (int, string, string) {
			if !viaStdin {
				return ledgerRun(t, append(args, "--car", path)...)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			return ledgerRunIn(t, f, append(args, "--car", "-")...)
		}
		code, out, _ := withCar(car, "verify", "--json")
		if code != 0 || !strings.Contains(out, `"transcripts": 24`) {
			t.Fatalf("stdin %v: verify --car: %d %s", viaStdin, code, out)
		}
		dst := filepath.Join(t.TempDir(), "imported")
		if code, out, errs := withCar(car, "import", "--data", dst, "--json"); code != 0 || !strings.Contains(out, `"blocks": 6`) {
			t.Fatalf("stdin %v: import: %d %s %s", viaStdin, code, out, errs)
		}
		if code, out, _ := ledgerRun(t, "verify", "--data", dst, "--json"); code != 0 || !strings.Contains(out, `"transcripts": 24`) {
			t.Fatalf("stdin %v: verify after import: %d %s", viaStdin, code, out)
		}
		// The damaged archive: verify fails (1), import refuses it (1).
		if code, out, errs := withCar(bad, "verify", "--no-reexec"); code != 1 || !strings.Contains(out, "FAIL") {
			t.Fatalf("stdin %v: verify damaged: %d %s %s", viaStdin, code, out, errs)
		}
		if code, out, errs := withCar(bad, "import", "--data", filepath.Join(t.TempDir(), "x")); code != 1 || !strings.Contains(errs, "section") {
			t.Fatalf("stdin %v: import damaged: %d %s %s", viaStdin, code, out, errs)
		}
	}
}

func TestProofCommands(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	miner := verifytest.Miner(1).String()
	code, out, errs := ledgerRun(t, "transcripts", "--data", dir, "--miner", miner, "--json")
	if code != 0 {
		t.Fatalf("transcripts: %d %s %s", code, out, errs)
	}
	var rows []struct {
		Env, Challenge, Validator, Block, Transcript string
		Height                                       uint64
		Score                                        int64
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	// Miner(n%3) with n counting a validator's transcripts 0..11: 1, 4, 7, 10.
	if len(rows) != 8 {
		t.Fatalf("%d rows for miner 1: %s", len(rows), out)
	}
	code, out, _ = ledgerRun(t, "transcripts", "--data", dir, "--miner", miner, "--env", rows[0].Env, "--json")
	var some []map[string]any
	json.Unmarshal([]byte(out), &some)
	if code != 0 || len(some) == 0 || len(some) >= len(rows) {
		t.Fatalf("--env filter: %d rows of %d", len(some), len(rows))
	}

	proof := filepath.Join(t.TempDir(), "p.json")
	if code, out, errs := ledgerRun(t, "prove", "--data", dir, "--transcript", rows[0].Transcript, "--out", proof); code != 0 {
		t.Fatalf("prove: %d %s %s", code, out, errs)
	}
	code, out, _ = ledgerRun(t, "verify-proof", proof)
	if code != 0 || !strings.Contains(out, rows[0].Transcript) || !strings.Contains(out, "on the ledger of "+recordtest.Network.String()) {
		t.Fatalf("verify-proof: %d %s", code, out)
	}
	// A modified transcript in the proof fails (exit 1).
	var p map[string]any
	data, _ := os.ReadFile(proof)
	json.Unmarshal(data, &p)
	p["leaf_index"] = p["leaf_index"].(float64) + 1
	data, _ = json.Marshal(p)
	os.WriteFile(proof, data, 0o600)
	if code, out, _ := ledgerRun(t, "verify-proof", "--json", proof); code != 1 || !strings.Contains(out, `"ok": false`) {
		t.Fatalf("verify-proof of a bad proof: %d %s", code, out)
	}

	cons := filepath.Join(t.TempDir(), "c.json")
	v := verifytest.Key(1).Public().String()
	if code, out, errs := ledgerRun(t, "consistency", "--data", dir, "--validator", v, "--from", "0", "--to", "2", "--out", cons); code != 0 {
		t.Fatalf("consistency: %d %s %s", code, out, errs)
	}
	code, out, _ = ledgerRun(t, "verify-proof", "--json", cons)
	var res struct {
		OK     bool           `json:"ok"`
		Proves map[string]any `json:"proves"`
	}
	json.Unmarshal([]byte(out), &res)
	keys := make([]string, 0)
	for k := range res.Proves {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	want := []string{"block", "checkpoint", "height", "network", "older_block", "older_checkpoint", "older_height", "type", "validator"}
	if code != 0 || !res.OK || !reflect.DeepEqual(keys, want) {
		t.Fatalf("verify-proof consistency: %d %s", code, out)
	}
}

func cidFromBytes(b []byte) (int, cid.Cid, error) { return cid.CidFromBytes(b) }

// TestVerifyValidatorScope: --validator V audits V's chain and V's fork
// proofs only: another validator's equivocation does not fail the audit
// of V's clean chain, and V's own still fails V's.
func TestVerifyValidatorScope(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	s, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verifytest.Equivocate(s, verifytest.Key(1), 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	type report struct {
		OK         bool `json:"ok"`
		ForkProofs int  `json:"fork_proofs"`
		Failures   []struct {
			Validator string `json:"validator"`
			Height    uint64 `json:"height"`
			Reason    string `json:"reason"`
		} `json:"failures"`
	}
	audit := func(v string) (int, report, string) {
		t.Helper()
		code, out, errs := ledgerRun(t, "verify", "--data", dir, "--validator", v, "--json", "--no-reexec")
		var rep report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("verify --validator %s: %d %s %s", v, code, out, errs)
		}
		return code, rep, out
	}
	v0, v1 := verifytest.Key(0).Public().String(), verifytest.Key(1).Public().String()
	if code, rep, out := audit(v0); code != 0 || !rep.OK || rep.ForkProofs != 0 {
		t.Errorf("verify of validator 0's clean chain: exit %d, failures of another validator: %s", code, out)
	}
	code, rep, out := audit(v1)
	if code != 1 || rep.OK || rep.ForkProofs != 1 || len(rep.Failures) != 1 ||
		rep.Failures[0].Validator != v1 || rep.Failures[0].Height != 1 || !strings.Contains(rep.Failures[0].Reason, "equivocation") {
		t.Errorf("verify of the equivocating validator 1: exit %d, want its fork proof as its one failure: %s", code, out)
	}
}

// TestVerifyFromPastHead: --from above every head verifies nothing and
// must not report a clean audit ("ok: 0 chains", exit 0); like an unknown
// --validator it is a usage error (2), naming the head it is above.
func TestVerifyFromPastHead(t *testing.T) {
	t.Parallel()
	dir, spec := builtLedger(t)
	top := spec.Blocks - 1 // heights are 0..Blocks-1
	past := strconv.Itoa(spec.Blocks)
	for _, args := range [][]string{
		{"verify", "--data", dir, "--from", past},
		{"verify", "--data", dir, "--validator", verifytest.Key(0).Public().String(), "--from", past},
	} {
		code, out, errs := ledgerRun(t, args...)
		if code != exitUsage || !strings.Contains(errs, "height "+strconv.Itoa(top)) {
			t.Errorf("%v: exit %d, want %d naming height %d: %s %s", args, code, exitUsage, top, out, errs)
		}
	}
	// The last height itself is verified.
	if code, out, errs := ledgerRun(t, "verify", "--data", dir, "--no-reexec", "--from", strconv.Itoa(top)); code != 0 {
		t.Errorf("--from %d: exit %d: %s %s", top, code, out, errs)
	}
}

// TestVerifyChainBeforeAudit: verify --chain opened the chain only after
// the audit, which can take hours on a large store: a malformed spec or a
// chain that cannot be reached then failed the command (exit 2) and the
// audit's result was thrown away. The chain is now opened first, before
// the store is even looked at: with a --data that does not exist, the
// error is the chain's.
func TestVerifyChainBeforeAudit(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "missing")
	for _, spec := range []string{"nowhere", "local+http://127.0.0.1:1"} {
		code, out, errs := ledgerRun(t, "verify", "--data", missing, "--chain", spec)
		if code != exitUsage || strings.Contains(errs, "--data") || !strings.Contains(errs, spec) {
			t.Errorf("--chain %s: exit %d, %q %q; want exit 2 naming the chain before the store", spec, code, out, errs)
		}
	}
}

// TestVerifyFromNamesChainsBelow: with --from H, chains that end below H
// are not checked; the audit says which (text and JSON) rather than count
// only the others, as if the store held no more.
func TestVerifyFromNamesChainsBelow(t *testing.T) {
	t.Parallel()
	dir, ks := storeOf(t, &verifytest.Spec{Validators: 4, PerBlock: 2, Lengths: []int{2, 5, 1, 3}, Envs: []string{"mult8"}})
	// Heads at heights 1, 4, 0 and 2: --from 3 checks validator 1's
	// chain only. Chains are listed in the store's order, by public key.
	var wantJSON []verify.ChainEnd
	var names []string
	for _, i := range []int{0, 2, 3} {
		wantJSON = append(wantJSON, verify.ChainEnd{Validator: ks[i].Public().String(), Height: []uint64{1, 4, 0, 2}[i]})
	}
	slices.SortFunc(wantJSON, func(a, b verify.ChainEnd) int {
		x, _ := keys.ParseSS58(a.Validator)
		y, _ := keys.ParseSS58(b.Validator)
		return bytes.Compare(x[:], y[:])
	})
	for _, e := range wantJSON {
		names = append(names, fmt.Sprintf("validator %s (head at height %d)", e.Validator, e.Height))
	}
	code, out, errs := ledgerRun(t, "verify", "--data", dir, "--from", "3", "--no-reexec")
	want := "not checked: 3 chains end below --from: " + strings.Join(names, ", ")
	if code != 0 || !strings.Contains(out, "ok: 1 chain, 2 blocks") || !strings.Contains(out, want) {
		t.Fatalf("verify --from 3: exit %d, %s %s; want ok for 1 chain and %q", code, out, errs, want)
	}
	code, out, errs = ledgerRun(t, "verify", "--data", dir, "--from", "3", "--no-reexec", "--json")
	var rep verify.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 {
		t.Fatalf("verify --from 3 --json: exit %d, %v: %s %s", code, err, out, errs)
	}
	if rep.Chains != 1 || !slices.Equal(rep.BelowFrom, wantJSON) {
		t.Fatalf("chains %d, chains_below_from %+v; want 1 and %+v", rep.Chains, rep.BelowFrom, wantJSON)
	}
	// Without --from, or with every chain reaching it, nothing is listed.
	code, out, _ = ledgerRun(t, "verify", "--data", dir, "--no-reexec", "--json")
	if code != 0 || strings.Contains(out, "chains_below_from") {
		t.Fatalf("verify --json without --from: exit %d, %s", code, out)
	}
}

// TestVerifyReportsTornLog: a store whose newest write-ahead log is cut
// short (as a crash leaves it, or a copy cut short) opens at the state
// before the cut record; the audit passes what it reads, and says which
// log ends torn where, in text and JSON.
func TestVerifyReportsTornLog(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	newest := ""
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".log") && e.Name() > newest {
			newest = e.Name()
		}
	}
	code, out, errs := ledgerRun(t, "verify", "--data", dir, "--no-reexec")
	if code != 0 || strings.Contains(out, "torn") {
		t.Fatalf("verify of the intact store: exit %d, %s %s", code, out, errs)
	}
	path := filepath.Join(dir, newest)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = ledgerRun(t, "verify", "--data", dir, "--no-reexec")
	want := "note: the store's log " + newest + " ends torn at byte "
	if code != 0 || !strings.Contains(out, want) || !strings.Contains(out, "not replayed") {
		t.Fatalf("verify: exit %d, %s %s; want exit 0 and %q", code, out, errs, want)
	}
	code, out, errs = ledgerRun(t, "verify", "--data", dir, "--no-reexec", "--json")
	var rep struct {
		OK      bool `json:"ok"`
		TornLog *struct {
			Log    string `json:"log"`
			Offset int64  `json:"offset"`
			Size   int64  `json:"size"`
		} `json:"torn_log"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || !rep.OK || rep.TornLog == nil {
		t.Fatalf("verify --json: exit %d, %v: %s %s", code, err, out, errs)
	}
	if tl := rep.TornLog; tl.Log != newest || tl.Size != int64(len(b)/2) || tl.Offset >= tl.Size {
		t.Fatalf("torn_log %+v, want %s torn within its %d bytes", *tl, newest, len(b)/2)
	}
}

// TestVerifyEmptyStore: a store that holds no chain (a node's before its
// first block, or one a failed import left) is not a clean audit ("ok: 0
// chains", exit 0) but bad input (exit 2) saying there is nothing to
// audit, with --json too.
func TestVerifyEmptyStore(t *testing.T) {
	t.Parallel()
	dir, _ := storeOf(t, nil)
	for _, args := range [][]string{
		{"verify", "--data", dir},
		{"verify", "--data", dir, "--json"},
		{"verify", "--data", filepath.Dir(dir), "--from", "3"},
	} {
		code, out, errs := ledgerRun(t, args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, "holds no chain: there is nothing to audit") {
			t.Errorf("%v: exit %d, %q %q; want exit 2 saying the store holds no chain", args, code, out, errs)
		}
	}
}
