package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/internal/syncbuf"
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
		{[]string{"--stagger", "-1s"}, "--stagger -1s"},
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

// TestDevnetInterrupted: a devnet stopped by SIGINT said that "no champion
// was crowned with weights set before --duration ran out" and exited 1,
// as if its time had run out. It says it was interrupted, still stops the
// network and audits it, and exits as an interrupted command does.
func TestDevnetInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a network")
	}
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "net")
	args := strings.Join([]string{"devnet", "--dir", dir, "--validators", "2", "--miners", "2", "--duration", "10m"}, "\n")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLedgerChild$")
	cmd.Env = append(os.Environ(), "LEDGER_TEST_CHILD="+args)
	var stderr syncbuf.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(stderr.String(), "duel:"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the devnet ran no duel; stderr: %s", stderr.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 128+int(syscall.SIGINT) {
		t.Fatalf("exit %v, want code %d; stderr: %s", err, 128+int(syscall.SIGINT), stderr.String())
	}
	errs := stderr.String()
	for _, want := range []string{"interrupted: stopping the network", "store verified", "ledger: devnet: interrupted (interrupt)"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if strings.Contains(errs, "--duration ran out") || strings.Contains(errs, "time is up") {
		t.Errorf("an interrupt reported as the end of --duration:\n%s", errs)
	}
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil || !strings.Contains(string(data), `"interrupted": true`) {
		t.Errorf("summary.json does not say it was interrupted (%v):\n%s", err, data)
	}
}
