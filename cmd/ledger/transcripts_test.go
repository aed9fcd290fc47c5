package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestTranscriptsEnvFilter: --env that is no env name (the explorer
// answers 400 for it) or names no known env is usage (exit 2), not an
// empty list: a miner's typo must not look like "no transcripts". A known
// env lists the miner's transcripts of that env only.
func TestTranscriptsEnvFilter(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	miner := verifytest.Miner(1).String()
	for _, env := range []string{"Mult 8", "nosuchenv", "8mult"} {
		code, out, errs := ledgerRun(t, "transcripts", "--data", dir, "--miner", miner, "--env", env, "--json")
		if code != exitUsage {
			t.Errorf("--env %q: exit %d, want %d: %s %s", env, code, exitUsage, out, errs)
		}
	}
	code, out, errs := ledgerRun(t, "transcripts", "--data", dir, "--miner", miner, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var all []minerTranscript
	if err := json.Unmarshal([]byte(out), &all); err != nil || len(all) == 0 {
		t.Fatalf("%d rows, %v: %s", len(all), err, out)
	}
	env := all[0].Env
	code, out, errs = ledgerRun(t, "transcripts", "--data", dir, "--miner", miner, "--env", env, "--json")
	if code != 0 {
		t.Fatalf("--env %s: exit %d: %s", env, code, errs)
	}
	var some []minerTranscript
	if err := json.Unmarshal([]byte(out), &some); err != nil || len(some) == 0 {
		t.Fatalf("--env %s: %d rows, %v", env, len(some), err)
	}
	for _, r := range some {
		if r.Env != env {
			t.Errorf("--env %s listed a transcript of %s", env, r.Env)
		}
	}
}

// TestTranscriptsOfUnknownMiner: a miner with no transcript in the store
// gets the table's header and a line on stderr saying so, exit 0: the
// miner may not have been dueled yet.
func TestTranscriptsOfUnknownMiner(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	stranger := verifytest.Key(9).Public().String()
	code, out, errs := ledgerRun(t, "transcripts", "--data", dir, "--miner", stranger)
	if code != 0 || !strings.HasPrefix(out, "ENV") || strings.Count(out, "\n") != 1 {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	if !strings.Contains(errs, "no transcripts of miner "+stranger) {
		t.Errorf("stderr does not say the miner has no transcripts: %q", errs)
	}
}

// TestTranscriptsListAroundDamage: one transcript whose stored bytes no
// longer hash to its CID does not hide the miner's others. Every readable
// one is listed as before; the damaged one is named on stderr and, in the
// JSON, is an entry with its CID, place and error; the command exits 1.
func TestTranscriptsListAroundDamage(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	miner := verifytest.Miner(1).String()
	rows := minerRows(t, dir, miner)
	if len(rows) < 2 {
		t.Fatalf("%d rows; the test needs 2", len(rows))
	}
	bad := rows[1]
	swapTranscriptBytes(t, dir, bad, rows[0])

	code, out, errs := ledgerRun(t, "transcripts", "--data", dir, "--miner", miner, "--json")
	if code != exitCheckFail {
		t.Errorf("--json: exit %d, want 1: %s", code, errs)
	}
	var got []minerTranscript
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("--json: %v: %s", err, out)
	}
	if len(got) != len(rows) {
		t.Fatalf("--json: %d rows, want all %d", len(got), len(rows))
	}
	for i, r := range got {
		if i == 1 {
			if r.Error == "" || r.Transcript != bad.Transcript || r.Validator != bad.Validator || r.Height != bad.Height || r.Leaf != bad.Leaf || r.Env != "" {
				t.Errorf("--json: the damaged transcript's entry is %+v; want its CID, place and an error", r)
			}
			continue
		}
		if r != rows[i] {
			t.Errorf("--json: row %d is %+v, want %+v as before the damage", i, r, rows[i])
		}
	}
	if !strings.Contains(errs, bad.Transcript) || !strings.Contains(errs, "1 of "+strconv.Itoa(len(rows))+" transcripts") {
		t.Errorf("--json: stderr does not name the damaged transcript and the count: %q", errs)
	}

	code, out, errs = ledgerRun(t, "transcripts", "--data", dir, "--miner", miner)
	if code != exitCheckFail || !strings.Contains(errs, bad.Transcript) {
		t.Errorf("table: exit %d, stderr %q; want 1 naming %s", code, errs, bad.Transcript)
	}
	if n := strings.Count(out, "\n"); n != len(rows) { // header + the readable ones
		t.Errorf("table: %d lines, want the header and %d rows:\n%s", n, len(rows)-1, out)
	}
	if strings.Contains(out, bad.Transcript) {
		t.Errorf("table lists the damaged transcript as if read:\n%s", out)
	}
}
