package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/chain/local"
	"github.com/affine-ledger/ledger/internal/syncbuf"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/node"
)

// startNode runs "ledger node args..." until ctx ends; the returned channel
// yields its error.
func startNode(ctx context.Context, out *syncbuf.Buffer, args ...string) <-chan error {
	return startCommand(ctx, out, append([]string{"node", "--log-level", "error"}, args...)...)
}

// startCommand runs "ledger args..." in this process until ctx ends, its
// output in out; the returned channel yields its error.
func startCommand(ctx context.Context, out *syncbuf.Buffer, args ...string) <-chan error {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(out)
	root.SetErr(out)
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	return done
}

// nodeContexts returns a test's context, bounded to 30 s, and one under
// it for a node started with startNode, which stop ends; both end with the
// test.
func nodeContexts(t *testing.T) (ctx, nodeCtx context.Context, stop context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	nodeCtx, stop = context.WithCancel(ctx)
	t.Cleanup(stop)
	return ctx, nodeCtx, stop
}

// waitFor polls until re matches out and returns the first group.
func waitFor(t *testing.T, ctx context.Context, out *syncbuf.Buffer, re *regexp.Regexp) string {
	t.Helper()
	for {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			return m[1]
		}
		select {
		case <-ctx.Done():
			t.Fatalf("never printed %s; output:\n%s", re, out)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func TestNodeAndPeersCommands(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nodeCtx, stopNodes := context.WithCancel(ctx)
	defer stopNodes()
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "hotkey.json")
	alice, _ := keys.FromURI("//Alice")
	if err := keys.WriteKeyFile(keyFile, alice, false); err != nil {
		t.Fatal(err)
	}
	valData, obsData := filepath.Join(dir, "validator"), filepath.Join(dir, "observer")

	var valOut, obsOut syncbuf.Buffer
	valDone := startNode(nodeCtx, &valOut, "--data", valData, "--key", keyFile, "--genesis", strings.Repeat("ab", 32), "--listen", "/ip4/127.0.0.1/tcp/0", "--validator", aliceAddress, "--log-level", "warn")
	id := waitFor(t, ctx, &valOut, regexp.MustCompile(`node (\S+) \(validator `+aliceAddress+`\)`))
	addr := waitFor(t, ctx, &valOut, regexp.MustCompile(`listening on (\S+)`))
	obsDone := startNode(nodeCtx, &obsOut, "--data", obsData, "--listen", "/ip4/127.0.0.1/tcp/0", "--peer", addr, "--status", "127.0.0.1:0", "--log-level", "warn")
	statusAddr := waitFor(t, ctx, &obsOut, regexp.MustCompile(`status endpoint http://(\S+)/status`))
	// Without --validator or --chain, a node takes any signed chain, and
	// says so; with --validator it does not.
	waitFor(t, ctx, &obsOut, regexp.MustCompile(`(no validator set)`))
	if strings.Contains(valOut.String(), "no validator set") {
		t.Errorf("a node with --validator warned of no validator set:\n%s", valOut.String())
	}

	// The observer sees the validator's node, bound to Alice.
	for {
		out, _, err := runLedger(t, "", "peers", "--status", statusAddr, "--json")
		if err != nil {
			t.Fatal(err)
		}
		var st node.Status
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("peers --json: %v\n%s", err, out)
		}
		if len(st.Peers) == 1 && st.Peers[0].ID.String() == id && st.Peers[0].Validator != nil && st.Peers[0].Validator.String() == aliceAddress {
			// The same status named the validator's chain.
			if g := st.Peers[0].Genesis; g == nil || g.String() != strings.Repeat("ab", 32) {
				t.Errorf("observer lists the validator's node of genesis %v, want %s", g, strings.Repeat("ab", 32))
			}
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("observer never reported the validator's node bound to Alice:\n%s", out)
		case <-time.After(50 * time.Millisecond):
		}
	}
	// The validator's status file names it.
	out, _, err := runLedger(t, "", "peers", "--data", valData)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "node "+id+" (validator "+aliceAddress+")") {
		t.Errorf("peers --data output:\n%s", out)
	}

	stopNodes()
	for name, done := range map[string]<-chan error{"validator": valDone, "observer": obsDone} {
		if err := <-done; err != nil {
			t.Errorf("%s node: %v", name, err)
		}
	}
	// Identity persisted with mode 0600 for the next start.
	st, err := node.ReadStatusFile(valData)
	if err != nil {
		t.Fatal(err)
	}
	// --genesis bound the validator's store to its network.
	if st.Genesis == nil || st.Genesis.String() != strings.Repeat("ab", 32) {
		t.Errorf("validator's status names genesis %v, want %s", st.Genesis, strings.Repeat("ab", 32))
	}
}

func TestNodeCommandRejectsBadFlags(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"node"}, "required flag"},
		{[]string{"node", "--data", dir, "--peer", "/ip4/127.0.0.1/tcp/1"}, "/p2p/<peer ID>"},
		{[]string{"node", "--data", dir, "--listen", "not-an-address"}, "--listen"},
		{[]string{"node", "--data", dir, "--validator", "5abc"}, "--validator"},
		{[]string{"node", "--data", dir, "--log-level", "loud"}, "--log-level"},
		{[]string{"node", "--data", dir, "--listen", "/ip4/127.0.0.1/tcp/0", "--status", "0.0.0.0:0"}, "loopback"},
		{[]string{"peers"}, "exactly one"},
		{[]string{"peers", "--data", t.TempDir()}, "no status file"},
	} {
		_, _, err := runLedger(t, "", tc.args...)
		if !usageExit(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want exit 2 mentioning %q", tc.args, err, tc.want)
		}
	}
}

// TestNodeNetuidFollowsChain: the README's validator command gives the
// subnet in --chain (.../netuid=N) and no --netuid; the node must then
// gossip on subnet N's topics, not on subnet 0's while validating N.
func TestNodeNetuidFollowsChain(t *testing.T) {
	t.Parallel()
	ctx, nodeCtx, stop := nodeContexts(t)
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "hotkey.json")
	alice, _ := keys.FromURI("//Alice")
	if err := keys.WriteKeyFile(keyFile, alice, false); err != nil {
		t.Fatal(err)
	}
	var out syncbuf.Buffer
	done := startNode(nodeCtx, &out, "--data", filepath.Join(dir, "node"), "--key", keyFile,
		"--listen", "/ip4/127.0.0.1/tcp/0", "--chain", "local", "--evaluate=false", "--epochs=false", "--log-level", "warn")
	netuid := waitFor(t, ctx, &out, regexp.MustCompile(`netuid (\d+) listening`))
	// Alice holds no uid on the local chain's empty subnet.
	waitFor(t, ctx, &out, regexp.MustCompile(`(this hotkey is not registered on the subnet)`))
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprint(local.DefaultNetuid); netuid != want {
		t.Fatalf("node joined netuid %s; its chain's subnet is %s", netuid, want)
	}
}

// TestNodeRefusesContradictoryNetuid: a --netuid other than the chain's
// subnet is usage (exit 2), before anything starts.
func TestNodeRefusesContradictoryNetuid(t *testing.T) {
	t.Parallel()
	bad := fmt.Sprint(local.DefaultNetuid + 1)
	code, out, errs := ledgerRun(t, "node", "--data", t.TempDir(), "--listen", "/ip4/127.0.0.1/tcp/0",
		"--chain", "local", "--netuid", bad)
	if code != exitUsage || !strings.Contains(errs, "--netuid "+bad) {
		t.Fatalf("exit %d, want %d naming --netuid %s: %s %s", code, exitUsage, bad, out, errs)
	}
}

// runStopped runs a long-running command line (node, chain serve, devnet)
// with a context that has already ended: one that accepts its input starts
// and stops at once (exit 0), one that refuses it fails without starting.
func runStopped(t *testing.T, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	root := newRootCmd()
	var out syncbuf.Buffer
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&out)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK, out.String()
	}
	var cf checkFailed
	if errors.As(err, &cf) {
		return exitCheckFail, out.String() + err.Error()
	}
	return exitUsage, out.String() + err.Error()
}

// TestNodeRefusesBadInputBeforeStarting: node flags that cannot work are
// bad usage before the node makes anything in its data directory. A
// --data that is a ledger store itself (what every other command takes for
// --data) got a new, empty store made inside it, and the node's identity
// and status file among the store's files; a --status that is no loopback
// address was refused only once the data directory, its store and identity
// existed; a negative --miner-timeout was taken as the default,
// --pprof without --status served nothing, and the flags of a validator's
// work (--evaluate, --epochs, --chutes-api-key, --miner-timeout) did
// nothing without --chain and --key.
func TestNodeRefusesBadInputBeforeStarting(t *testing.T) {
	t.Parallel()
	store, _ := builtLedger(t)
	before := ledgertest.DirHashes(t, store)
	fresh := filepath.Join(t.TempDir(), "node")
	listen := []string{"--listen", "/ip4/127.0.0.1/tcp/0", "--log-level", "error"}
	keyFile := filepath.Join(t.TempDir(), "hotkey.json")
	if err := keys.WriteKeyFile(keyFile, recordtest.Hotkey(t, "//Alice"), false); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", store}, "--data " + store + " is a ledger store"},
		{[]string{"--data", fresh, "--status", "0.0.0.0:0"}, "--status 0.0.0.0:0"},
		{[]string{"--data", fresh, "--miner-timeout", "-1s"}, "--miner-timeout -1s"},
		{[]string{"--data", fresh, "--pprof"}, "--pprof"},
		{[]string{"--data", fresh, "--chutes-api-key", "k"}, "--chutes-api-key applies to a validator's node"},
		{[]string{"--data", fresh, "--chain", "local", "--evaluate=false"}, "--evaluate applies to a validator's node"},
		{[]string{"--data", fresh, "--private-endpoints"}, "--private-endpoints applies to a validator's node"},
		{[]string{"--data", fresh, "--genesis", "abc"}, "--genesis: hash: want 64 hex characters"},
		{[]string{"--data", fresh, "--key", keyFile}, "--key without --chain needs --genesis"},
		{[]string{"--data", fresh, "--genesis", strings.Repeat("00", 32)}, "--genesis: the hash is all zeros"},
		{[]string{"--data", fresh, "--chain", "local", "--genesis", strings.Repeat("11", 32)}, "contradicts --chain, whose genesis hash is"},
	} {
		code, out := runStopped(t, append(append([]string{"node"}, tc.args...), listen...)...)
		if code != exitUsage || !strings.Contains(out, tc.want) {
			t.Errorf("node %v: exit %d, %q; want exit 2 naming %q", tc.args, code, out, tc.want)
		}
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Errorf("a refused node made its data directory %s", fresh)
	}
	after := ledgertest.DirHashes(t, store)
	if len(after) != len(before) {
		t.Errorf("node on a store directory: %d files before, %d after", len(before), len(after))
	}
}

// A validator asks miners at public addresses only, unless its chain is a
// local one (a test network, miners on loopback) or --private-endpoints
// says otherwise.
func TestAskPublicOnly(t *testing.T) {
	for _, c := range []struct {
		spec    string
		private bool
		want    bool
	}{
		{"subtensor+wss://entrypoint-finney.opentensor.ai:443/netuid=120", false, true},
		{"subtensor+wss://entrypoint-finney.opentensor.ai:443/netuid=120", true, false},
		{"local", false, false},
		{"local+http://127.0.0.1:9944", false, false},
	} {
		if got := askPublicOnly(c.spec, c.private); got != c.want {
			t.Errorf("%s, --private-endpoints=%v: public only %v, want %v", c.spec, c.private, got, c.want)
		}
	}
}

// TestObserverChainNote: a node without --key logged "--chain is used by
// the explorer only", while --chain also gave it its subnet, the chain's
// genesis and the validators whose chains it stores. The line says so.
func TestObserverChainNote(t *testing.T) {
	t.Parallel()
	code, out := runStopped(t, "node", "--data", t.TempDir(), "--listen", "/ip4/127.0.0.1/tcp/0", "--chain", "local", "--log-format", "text")
	if code != exitOK {
		t.Fatalf("observer with --chain local: exit %d: %s", code, out)
	}
	if strings.Contains(out, "explorer only") {
		t.Errorf("the observer says --chain is for the explorer only:\n%s", out)
	}
	for _, want := range []string{"running as an observer", fmt.Sprintf("netuid %d of chain ", local.DefaultNetuid), "validators whose chains it stores"} {
		if !strings.Contains(out, want) {
			t.Errorf("the observer's note lacks %q:\n%s", want, out)
		}
	}
}
