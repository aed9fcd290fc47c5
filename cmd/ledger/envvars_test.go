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
