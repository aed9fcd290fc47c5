package main

import (
	"encoding/json"
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
