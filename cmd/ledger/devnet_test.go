package main

import (
	"bytes"
	"encoding/json"
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
