package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestEnvironmentSetsFlags(t *testing.T) {
	var out, errb bytes.Buffer
	// A variable sets an unset flag: here a bad value, so the error names it.
	t.Setenv("LEDGER_VALIDATORS", "zero")
	if code := run([]string{"devnet", "--dir", t.TempDir()}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "LEDGER_VALIDATORS") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	// The command line wins over the environment.
	errb.Reset()
	t.Setenv("LEDGER_VALIDATORS", "0")
	if code := run([]string{"devnet", "--dir", t.TempDir(), "--validators", "1", "--miners", "1"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--miners 1") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	errb.Reset()
	t.Setenv("LEDGER_LOG_LEVEL", "loud")
	if code := run([]string{"version"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), `--log-level "loud"`) {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	t.Setenv("LEDGER_LOG_LEVEL", "")
	errb.Reset()
	if code := run([]string{"version", "--log-format", "xml"}, &out, &errb); code != 2 {
		t.Fatalf("--log-format xml: exit %d", code)
	}
	// Help names every flag's variable.
	out.Reset()
	if code := run([]string{"node", "--help"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "[$LEDGER_CHAIN]") || !strings.Contains(out.String(), "[$LEDGER_LOG_LEVEL]") {
		t.Fatalf("help: %s", out.String())
	}
}

// TestEnvironmentErrorsNameTheVariable: a value a LEDGER_* variable gave
// that the command then refuses was reported under its flag alone; an
// operator who never typed the flag must be told which variable to fix.
// A flag given on the command line is reported as before.
func TestEnvironmentErrorsNameTheVariable(t *testing.T) {
	for _, tc := range []struct {
		name, env, value string
		args             []string
		want             []string
	}{
		{"log level", "LEDGER_LOG_LEVEL", "loud", []string{"version"},
			[]string{`--log-level "loud"`, "LEDGER_LOG_LEVEL"}},
		{"validators", "LEDGER_VALIDATORS", "0", []string{"devnet", "--dir", t.TempDir()},
			[]string{"--validators 0", "LEDGER_VALIDATORS"}},
		{"chain", "LEDGER_CHAIN", "nope", []string{"verify", "--data", t.TempDir()},
			[]string{"--chain", "LEDGER_CHAIN"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(tc.env, tc.value)
			code, _, errs := ledgerRun(t, tc.args...)
			if code != exitUsage {
				t.Fatalf("%s=%s ledger %v: exit %d: %s", tc.env, tc.value, tc.args, code, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("%s=%s ledger %v: %q lacks %q", tc.env, tc.value, tc.args, errs, w)
				}
			}
		})
	}
	// From the command line, no variable is named; nor is one that set
	// another flag than the error's.
	t.Setenv("LEDGER_LOG_FORMAT", "text")
	code, _, errs := ledgerRun(t, "devnet", "--dir", t.TempDir(), "--validators", "0")
	if code != exitUsage || !strings.Contains(errs, "--validators 0") || strings.Contains(errs, "LEDGER_") {
		t.Errorf("--validators 0 on the command line: exit %d, %q; want the flag, no variable", code, errs)
	}
}
