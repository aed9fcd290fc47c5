package main

import (
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestEmptyFlagValuesAreRefused: a flag whose absence picks another mode
// of the command, given an empty value ("--key "$KEY"" with $KEY unset),
// silently ran that other mode: a node without its key as an observer, a
// node without its chain doing no validator work, verify without the
// commitments it was asked to check, serve without the chain. Each is bad
// usage naming the flag.
func TestEmptyFlagValuesAreRefused(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	node := []string{"node", "--data", t.TempDir(), "--listen", "/ip4/127.0.0.1/tcp/0", "--log-level", "error"}
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{append(node, "--key", ""), "--key"},
		{append(node, "--chain", ""), "--chain"},
		{[]string{"verify", "--data", dir, "--no-reexec", "--chain", ""}, "--chain"},
		{[]string{"verify", "--data", dir, "--no-reexec", "--validator", ""}, "--validator"},
		{[]string{"serve", "--data", dir, "--listen", "127.0.0.1:0", "--chain", ""}, "--chain"},
		{[]string{"transcripts", "--data", dir, "--miner", verifytest.Miner(1).String(), "--env", ""}, "--env"},
		{[]string{"ratio", "show", "--data", dir, "--validator", ""}, "--validator"},
		{[]string{"vtrust", "show", "--data", dir, "--chain", "local", "--as", ""}, "--as"},
		{[]string{"keys", "show", "--key", ""}, "--key"},
		{[]string{"miner", "commit", "--chain", "local", "--key", "", "--model", "m", "--revision", "r", "--endpoint", "http://127.0.0.1:1/v1"}, "--key"},
		{[]string{"vtrust", "show", "--data", dir, "--chain", "local", "--champion", ""}, "--champion"},
	} {
		code, out := runStopped(t, tc.args...)
		if code != exitUsage || !strings.Contains(out, tc.flag+": empty") {
			t.Errorf("%v: exit %d, %.200q; want exit 2 naming %s as empty", tc.args, code, out, tc.flag)
		}
	}
}
