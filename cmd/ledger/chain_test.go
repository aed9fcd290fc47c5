package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
)

// A served chain, a miner committing to it through "ledger miner commit",
// and the contender queue read back through the CLI.
func TestChainServeAndMinerCommit(t *testing.T) {
	dir := t.TempDir()
	miner, err := keys.FromURI("//Charlie")
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "miner.json")
	if err := keys.WriteKeyFile(keyFile, miner, false); err != nil {
		t.Fatal(err)
	}
	genesis := filepath.Join(dir, "genesis.json")
	os.WriteFile(genesis, []byte(`{"seed":"cli test","neurons":[{"hotkey":"`+aliceAddress+`","stake":100,"validator":true}]}`), 0o600)
	chainDir := filepath.Join(dir, "chain")

	spec := serveChain(t, "--dir", chainDir, "--genesis", genesis, "--tempo", "5", "--block-time", "100ms")

	// The miner is not registered yet: its commitment is refused.
	commit := func(extra ...string) (string, error) {
		cmd := newMinerCommitCmd()
		var buf bytes.Buffer
		cmd.SetOut(&buf)
		cmd.SetErr(&buf)
		cmd.SetArgs(append([]string{"--chain", spec, "--key", keyFile, "--model", "org/m", "--revision", "abc123", "--json"}, extra...))
		err := cmd.Execute()
		return buf.String(), err
	}
	if _, err := commit("--chute", "c-1"); err == nil || !strings.Contains(err.Error(), "not registered") {
		t.Fatalf("unregistered commit: %v", err)
	}
	stdout, _, err := runLedger(t, "", "chain", "register", "--chain", spec, "--admin-token", filepath.Join(chainDir, adminTokenFile), "--hotkey", miner.Public().SS58(), "--stake", "5")
	if err != nil || !strings.Contains(stdout, "uid 1 ") {
		t.Fatalf("register: %q %v", stdout, err)
	}
	if _, err := commit("--chute", "c-1", "--endpoint", "http://127.0.0.1:1/v1"); err == nil {
		t.Fatal("--chute and --endpoint together accepted")
	}
	if _, err := commit("--chute", "c-1", "--model-hash", "abcd"); !usageExit(err) {
		t.Fatalf("short model hash: %v", err)
	}
	got, err := commit("--endpoint", "http://127.0.0.1:8000/v1", "--model-hash", strings.Repeat("ab", 32))
	if err != nil {
		t.Fatalf("commit: %v %s", err, got)
	}
	var res struct {
		Block  uint64       `json:"block"`
		Fields []chain.Data `json:"fields"`
	}
	if err := json.Unmarshal([]byte(got), &res); err != nil || len(res.Fields) != 3 || string(res.Fields[0].Bytes) != "lm1:org/m@abc123" {
		t.Fatalf("commit output %s (%v)", got, err)
	}

	stdout, _, err = runLedger(t, "", "chain", "contenders", "--chain", spec, "--json")
	var queue []chain.Contender
	if err != nil || json.Unmarshal([]byte(stdout), &queue) != nil || len(queue) != 1 || queue[0].UID != 1 || queue[0].Commitment.Endpoint != "http://127.0.0.1:8000/v1" {
		t.Fatalf("contenders: %s %v", stdout, err)
	}
	stdout, _, err = runLedger(t, "", "chain", "status", "--chain", spec)
	if err != nil || !strings.Contains(stdout, "tempo 5") || !strings.Contains(stdout, aliceAddress) {
		t.Fatalf("status: %s %v", stdout, err)
	}
}

func TestChainServeRefusesNonLoopback(t *testing.T) {
	_, _, err := runLedger(t, "", "chain", "serve", "--dir", t.TempDir(), "--listen", "0.0.0.0:0")
	if !usageExit(err) || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("err %v", err)
	}
	_, _, err = runLedger(t, "", "chain", "status", "--chain", "nowhere")
	if !usageExit(err) {
		t.Fatalf("bad spec: %v", err)
	}
}

// TestChainRegisterRefusesANonToken: an --admin-token file that holds no
// token (a key file given by mistake: several lines) is bad usage naming
// the flag, not an HTTP client's "invalid header field value".
func TestChainRegisterRefusesANonToken(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "validator.key")
	if code, _, errs := ledgerRun(t, "keys", "new", "--out", keyFile); code != 0 {
		t.Fatalf("keys new: exit %d: %s", code, errs)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{keyFile, empty} {
		code, _, errs := ledgerRun(t, "chain", "register", "--chain", "local+http://127.0.0.1:1",
			"--admin-token", f, "--hotkey", "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY")
		if code != exitUsage || !strings.Contains(errs, "--admin-token "+f+": ") || !strings.Contains(errs, "admin-token") || strings.Contains(errs, "header") {
			t.Errorf("--admin-token %s: exit %d, %q; want exit 2 naming the file and what it should hold", f, code, errs)
		}
	}
}

// TestMinerCommitUnregisteredSaysWhatToDo: a commitment from a hotkey the
// subnet does not hold names the hotkey and how to register it.
func TestMinerCommitUnregisteredSaysWhatToDo(t *testing.T) {
	t.Parallel()
	keyFile := filepath.Join(t.TempDir(), "miner.key")
	if code, _, errs := ledgerRun(t, "keys", "new", "--out", keyFile); code != 0 {
		t.Fatalf("keys new: exit %d: %s", code, errs)
	}
	code, _, errs := ledgerRun(t, "miner", "commit", "--chain", "local", "--key", keyFile,
		"--model", "org/m", "--revision", "abc", "--endpoint", "http://127.0.0.1:1/v1")
	if code != exitUsage || !strings.Contains(errs, "not registered") || !strings.Contains(errs, "ledger chain register") || !strings.Contains(errs, "btcli") {
		t.Errorf("commit from an unregistered hotkey: exit %d, %q; want exit 2 saying how to register", code, errs)
	}
}

// TestChainServeFlagsAgainstItsDir: chain serve ignored --tempo,
// --block-time and --genesis when --dir held a chain, though its help says
// they are ignored unless they contradict it: one that does is now bad
// usage naming it, one that agrees is accepted. An empty --dir ran a chain
// in memory and wrote its admin token into the working directory; a
// --genesis that is no genesis was not named in the error.
func TestChainServeFlagsAgainstItsDir(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "chain")
	serve := []string{"chain", "serve", "--dir", dir, "--listen", "127.0.0.1:0"}
	if code, out := runStopped(t, append(serve, "--tempo", "10")...); code != exitOK {
		t.Fatalf("first start: exit %d: %s", code, out)
	}
	genesis := filepath.Join(t.TempDir(), "genesis.json")
	if err := os.WriteFile(genesis, []byte(`{"seed":"another chain"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string // "" for accepted
	}{
		{[]string{"--tempo", "20"}, "--tempo 20"},
		{[]string{"--block-time", "1s"}, "--block-time 1s"},
		{[]string{"--genesis", genesis}, "--genesis " + genesis},
		{[]string{"--tempo", "10"}, ""},
		{nil, ""},
	} {
		code, out := runStopped(t, append(serve, tc.args...)...)
		switch {
		case tc.want == "" && code != exitOK:
			t.Errorf("restart with %v: exit %d: %s", tc.args, code, out)
		case tc.want != "" && (code != exitUsage || !strings.Contains(out, tc.want)):
			t.Errorf("restart with %v: exit %d, %q; want exit 2 naming %q", tc.args, code, out, tc.want)
		}
	}

	notGenesis := writeFile(t, `{"type":"affine-ledger/inclusion-proof/v1"}`)
	code, out := runStopped(t, "chain", "serve", "--dir", filepath.Join(t.TempDir(), "c"), "--listen", "127.0.0.1:0", "--genesis", notGenesis)
	if code != exitUsage || !strings.Contains(out, "--genesis "+notGenesis+": ") {
		t.Errorf("--genesis of a proof: exit %d, %q; want exit 2 naming --genesis and the file", code, out)
	}

	code, out = runStopped(t, "chain", "serve", "--dir", "", "--listen", "127.0.0.1:0")
	if _, err := os.Stat(adminTokenFile); err == nil {
		os.Remove(adminTokenFile)
		t.Errorf("chain serve --dir \"\" wrote %s in the working directory", adminTokenFile)
	}
	if code != exitUsage || !strings.Contains(out, "--dir") {
		t.Errorf("--dir \"\": exit %d, %q; want exit 2 naming --dir", code, out)
	}
}
