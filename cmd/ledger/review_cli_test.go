package main

// Failing tests from an adversarial review of the command line, one per
// bug, each named for what it shows. They use the real command path
// (run, newRootCmd) as the other tests of this package do.

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/chain/local"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/verify/verifytest"
	"github.com/spf13/cobra"
)

// snapshotDir maps every file name in dir to the hash of its bytes.
func snapshotDir(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][32]byte{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = sha256.Sum256(data)
	}
	return out
}

// TestReviewReadOnlyCommandsLeaveStoreUntouched: an auditor's or a
// miner's command reads a store it did not write; it must not rewrite it
// (new MANIFEST, new WAL, new OPTIONS, old ones deleted), which also makes
// it fail on a read-only copy or mount.
func TestReviewReadOnlyCommandsLeaveStoreUntouched(t *testing.T) {
	t.Parallel()
	v := verifytest.Key(0).Public().String()
	for name, args := range map[string][]string{
		"verify":      {"verify", "--no-reexec"},
		"transcripts": {"transcripts", "--miner", verifytest.Miner(1).String()},
		"consistency": {"consistency", "--validator", v, "--from", "0", "--to", "1"},
		"ratio show":  {"ratio", "show"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir, _ := builtLedger(t)
			before := snapshotDir(t, dir)
			if code, out, errs := ledgerRun(t, append(args, "--data", dir)...); code != 0 {
				t.Fatalf("%v: exit %d: %s %s", args, code, out, errs)
			}
			after := snapshotDir(t, dir)
			for f := range before {
				if _, ok := after[f]; !ok {
					t.Errorf("%s deleted %s", name, f)
				} else if after[f] != before[f] {
					t.Errorf("%s rewrote %s", name, f)
				}
			}
			for f := range after {
				if _, ok := before[f]; !ok {
					t.Errorf("%s created %s", name, f)
				}
			}
		})
	}
}

// TestReviewVerifyFromPastHead: --from above every head verifies nothing
// and must not report a clean audit ("ok: 0 chains", exit 0); an unknown
// --validator is already a usage error (2), and so should be a height the
// chain does not reach.
func TestReviewVerifyFromPastHead(t *testing.T) {
	t.Parallel()
	dir, spec := builtLedger(t)
	past := fmt.Sprint(spec.Blocks) // heights are 0..Blocks-1
	for _, args := range [][]string{
		{"verify", "--data", dir, "--from", past},
		{"verify", "--data", dir, "--validator", verifytest.Key(0).Public().String(), "--from", past},
	} {
		if code, out, errs := ledgerRun(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d: %s %s", args, code, exitUsage, out, errs)
		}
	}
}

// TestReviewRatioShowNodeDataDir: README: "--data takes a store or a
// node's data directory"; every other store command resolves DIR/store,
// ratio show refuses it.
func TestReviewRatioShowNodeDataDir(t *testing.T) {
	t.Parallel()
	store, _ := builtLedger(t)
	nodeDir := filepath.Dir(store) // builtLedger puts the store in DIR/store
	if code, _, _ := ledgerRun(t, "verify", "--data", nodeDir, "--no-reexec"); code != 0 {
		t.Fatalf("verify --data NODEDIR: exit %d", code)
	}
	if code, out, errs := ledgerRun(t, "ratio", "show", "--data", nodeDir, "--json"); code != 0 {
		t.Fatalf("ratio show --data NODEDIR: exit %d: %s %s", code, out, errs)
	}
}

// TestReviewVtrustShowEpochZero: epochs start at 1 (epoch.Compute refuses
// 0), but an explicit --epoch 0 is taken as "the default" and silently
// replaced by the last ended epoch (here: "no epoch has ended yet", exit 1).
func TestReviewVtrustShowEpochZero(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	code, out, errs := ledgerRun(t, "vtrust", "show", "--data", dir, "--chain", "local", "--epoch", "0")
	if code != exitUsage || !strings.Contains(errs, "--epoch") {
		t.Fatalf("--epoch 0: exit %d, want %d naming --epoch: %s %s", code, exitUsage, out, errs)
	}
}

// TestReviewVtrustShowEpochOverflow: --epoch K reads chain blocks
// [(K-1)·tempo, K·tempo); a K whose window overflows uint64 wraps to a
// nonsense window and is reported as a clean computation (exit 0).
func TestReviewVtrustShowEpochOverflow(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	// 2^61 · 360 = 45 · 2^64: the window's end wraps to block 0.
	code, out, errs := ledgerRun(t, "vtrust", "show", "--data", dir, "--chain", "local", "--epoch", "2305843009213693952")
	if code != exitUsage {
		t.Fatalf("--epoch 2^61: exit %d, want %d: %s %s", code, exitUsage, out, errs)
	}
}

// TestReviewNodeNetuidFollowsChain: the README's validator command gives
// the subnet in --chain (.../netuid=N) and no --netuid; the node then
// gossips on subnet 0's topics while validating subnet N. A node whose
// --netuid (default 0) contradicts its chain's subnet must take the
// chain's or refuse to start.
func TestReviewNodeNetuidFollowsChain(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nodeCtx, stop := context.WithCancel(ctx)
	defer stop()
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "hotkey.json")
	alice, _ := keys.FromURI("//Alice")
	if err := keys.WriteKeyFile(keyFile, alice, false); err != nil {
		t.Fatal(err)
	}
	var out nodeOutput
	done := startNode(nodeCtx, &out, "--data", filepath.Join(dir, "node"), "--key", keyFile,
		"--listen", "/ip4/127.0.0.1/tcp/0", "--chain", "local", "--evaluate=false", "--epochs=false")
	netuid := ""
	for netuid == "" {
		if m := regexp.MustCompile(`netuid (\d+) listening`).FindStringSubmatch(out.String()); m != nil {
			netuid = m[1]
			break
		}
		select {
		case err := <-done:
			// Refusing the contradiction (exit 2) is a fix too.
			if err != nil {
				return
			}
			t.Fatalf("node ended without error or output: %s", out.String())
		case <-ctx.Done():
			t.Fatalf("node never started: %s", out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	stop()
	<-done
	if want := fmt.Sprint(local.DefaultNetuid); netuid != want {
		t.Fatalf("node joined netuid %s; its chain's subnet is %s", netuid, want)
	}
}

// TestReviewImportBadArchiveCreatesNoStore: import of a file that is not a
// readable CARv1 exits 2 but has already created an empty Pebble store at
// --data (a typo'd path gains a store).
func TestReviewImportBadArchiveCreatesNoStore(t *testing.T) {
	t.Parallel()
	dst := filepath.Join(t.TempDir(), "new")
	if code, out, errs := ledgerRun(t, "import", "--data", dst, "--car", writeFile(t, "not a car")); code != exitUsage {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	if _, err := os.Stat(dst); err == nil {
		entries, _ := os.ReadDir(dst)
		t.Fatalf("import of an unreadable archive created %s (%d files)", dst, len(entries))
	}
}

// TestReviewTranscriptsRejectsBadEnv: --env that is not an env name (the
// explorer answers 400 for it) gives an empty list and exit 0: a miner's
// typo looks like "no transcripts".
func TestReviewTranscriptsRejectsBadEnv(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	code, out, errs := ledgerRun(t, "transcripts", "--data", dir, "--miner", verifytest.Miner(1).String(), "--env", "Mult 8", "--json")
	if code != exitUsage {
		var rows []json.RawMessage
		json.Unmarshal([]byte(out), &rows)
		t.Fatalf("--env \"Mult 8\": exit %d with %d rows, want %d: %s", code, len(rows), exitUsage, errs)
	}
}

// TestReviewEveryCommandHelpHasExampleAndExitCodes: README: "Every command
// has --help with an example"; main.go: exit codes "documented in every
// command's help".
func TestReviewEveryCommandHelpHasExampleAndExitCodes(t *testing.T) {
	t.Parallel()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if !c.Runnable() || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		if c.Example == "" {
			t.Errorf("%q has no example", c.CommandPath())
		}
		if !strings.Contains(c.Long, "Exit codes") {
			t.Errorf("%q does not document its exit codes", c.CommandPath())
		}
	}
	walk(newRootCmd())
}
