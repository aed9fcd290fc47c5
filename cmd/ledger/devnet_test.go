package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDevnetCommand runs `ledger devnet` as make demo does (smaller), then
// the verify command its summary prints.
func TestDevnetCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a network")
	}
	dir := filepath.Join(t.TempDir(), "net")
	var out, errb bytes.Buffer
	if code := run([]string{"devnet", "--dir", dir, "--validators", "2", "--miners", "2", "--duration", "100s"}, &out, &errb); code != 0 {
		t.Fatalf("devnet exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	text := out.String()
	cmd := "ledger verify --data " + filepath.Join(dir, "v1")
	for _, want := range []string{"Devnet summary", "champion: miner m1 (strong", "Wilson", "vTrust", "On-chain commitments", "Weights on chain", cmd} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(errb.String(), "goal reached") {
		t.Errorf("progress lacks the goal:\n%s", errb.String())
	}
	var rep struct {
		OK          bool `json:"ok"`
		Chains      int  `json:"chains"`
		Reexecuted  int  `json:"reexecuted"`
		Transcripts int  `json:"transcripts"`
	}
	out.Reset()
	args := append(strings.Fields(strings.TrimPrefix(cmd, "ledger ")), "--json")
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("%s: exit %d: %s", cmd, code, out.String())
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || !rep.OK || rep.Chains != 2 || rep.Reexecuted != rep.Transcripts || rep.Transcripts == 0 {
		t.Fatalf("verify report %+v (%v)", rep, err)
	}
	// A second run refuses to overwrite the first.
	errb.Reset()
	if code := run([]string{"devnet", "--dir", dir}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "not empty") {
		t.Fatalf("devnet on a used directory: exit %d, %s", code, errb.String())
	}
	for _, bad := range [][]string{{"devnet"}, {"devnet", "--dir", dir + "x", "--validators", "0"}, {"devnet", "--dir", dir + "x", "--miners", "1"}} {
		errb.Reset()
		if code := run(bad, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", bad, code, errb.String())
		}
	}
}

// TestDevnetRefusesBadFlagsBeforeStarting: a --tempo of 0 ran a devnet of
// tempo 24, and an --explorer that is no loopback address was refused only
// after the chain and validator 0's store were made in --dir, which then
// refused the corrected command as "not empty". Both are bad usage naming
// the flag, leaving --dir as it was.
func TestDevnetRefusesBadFlagsBeforeStarting(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "net")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--tempo", "0"}, "--tempo 0"},
		{[]string{"--explorer", "0.0.0.0:0"}, "--explorer 0.0.0.0:0"},
	} {
		code, out := runStopped(t, append([]string{"devnet", "--dir", dir, "--duration", "1s"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(out, tc.want) {
			t.Errorf("devnet %v: exit %d, %q; want exit 2 naming %q", tc.args, code, out, tc.want)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("devnet %v left %v in --dir", tc.args, left)
			os.RemoveAll(dir)
		}
	}
}
