package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/affine-ledger/ledger/node"
)

func TestEnvironmentSetsFlags(t *testing.T) {
	// A variable sets an unset flag: here a bad value, so the error names it.
	t.Setenv("LEDGER_NETUID", "zero")
	if code, _, errs := ledgerRun(t, "node", "--data", t.TempDir()); code != exitUsage || !strings.Contains(errs, "LEDGER_NETUID") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	t.Setenv("LEDGER_NETUID", "")
	t.Setenv("LEDGER_LOG_LEVEL", "loud")
	if code, _, errs := ledgerRun(t, "version"); code != exitUsage || !strings.Contains(errs, `--log-level "loud"`) {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// The command line wins over the environment.
	if code, _, errs := ledgerRun(t, "version", "--log-level", "warn"); code != exitOK {
		t.Fatalf("--log-level warn over LEDGER_LOG_LEVEL=loud: exit %d: %s", code, errs)
	}
	t.Setenv("LEDGER_LOG_LEVEL", "")
	if code, _, _ := ledgerRun(t, "version", "--log-format", "xml"); code != exitUsage {
		t.Fatalf("--log-format xml: exit %d", code)
	}
	// Help names the variable of each flag one sets, and no other.
	code, out, _ := ledgerRun(t, "node", "--help")
	for _, want := range []string{"[$LEDGER_CHAIN]", "[$LEDGER_LOG_LEVEL]", "[$LEDGER_LISTEN: a comma-separated list]"} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("node --help lacks %s: %s", want, out)
		}
	}
	if code, out, _ := ledgerRun(t, "chain", "serve", "--help"); code != exitOK || strings.Contains(out, "$LEDGER_LISTEN") || !strings.Contains(out, "$LEDGER_LOG_LEVEL") {
		t.Errorf("chain serve --help names LEDGER_LISTEN, which is the node's: %s", out)
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
		{"chain", "LEDGER_CHAIN", "nope", []string{"chain", "status"},
			[]string{"--chain", "LEDGER_CHAIN"}},
		{"validator", "LEDGER_VALIDATOR", "5Fnope", []string{"node", "--data", t.TempDir()},
			[]string{"--validator", "LEDGER_VALIDATOR"}},
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

// TestEnvVarsTable holds envVars to what its comment promises: each
// command it lists has the flag, one variable sets flags of one type, and
// no variable sets a flag of noEnv.
func TestEnvVarsTable(t *testing.T) {
	root := newRootCmd()
	commands := map[string]*cobra.Command{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		commands[commandName(c)] = c
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	seen := map[string]bool{}
	for _, v := range envVars {
		if seen[v.flag] {
			t.Errorf("%s is listed twice", envName(v.flag))
		}
		seen[v.flag] = true
		if noEnv[v.flag] {
			t.Errorf("%s sets --%s, which no variable may set", envName(v.flag), v.flag)
		}
		if v.commands == nil {
			if root.PersistentFlags().Lookup(v.flag) == nil {
				t.Errorf("%s is read by every command, but --%s is not the root's", envName(v.flag), v.flag)
			}
			continue
		}
		var typ string
		for _, name := range v.commands {
			c := commands[name]
			if c == nil || !c.Runnable() {
				t.Errorf("%s: no command %q", envName(v.flag), name)
				continue
			}
			f := c.Flags().Lookup(v.flag)
			if f == nil {
				t.Errorf("%s: %s has no --%s", envName(v.flag), name, v.flag)
				continue
			}
			if typ == "" {
				typ = f.Value.Type()
			} else if f.Value.Type() != typ {
				t.Errorf("%s: --%s of %s is a %s, of %s a %s", envName(v.flag), v.flag, v.commands[0], typ, name, f.Value.Type())
			}
		}
	}
}

// nodeEnvironment is what a node's unit file sets, each value right for
// "ledger node".
var nodeEnvironment = map[string]string{
	"LEDGER_DATA":              "/srv/ledger",
	"LEDGER_KEY":               "/srv/ledger/hotkey.json",
	"LEDGER_CHAIN":             "local+http://127.0.0.1:9944",
	"LEDGER_GENESIS":           strings.Repeat("ab", 32),
	"LEDGER_NETUID":            "7",
	"LEDGER_LISTEN":            "/ip4/0.0.0.0/tcp/4001, /ip4/0.0.0.0/udp/4001/quic-v1",
	"LEDGER_PEER":              "/ip4/10.0.0.2/tcp/4001/p2p/12D3KooWD3eckifWpRn9wQpMG9R9hX3sD158z7EqHWmweQAJU5SA",
	"LEDGER_VALIDATOR":         aliceAddress + "," + devAddress,
	"LEDGER_STATUS":            "127.0.0.1:8080",
	"LEDGER_MDNS":              "true",
	"LEDGER_EVALUATE":          "false",
	"LEDGER_EPOCHS":            "false",
	"LEDGER_CHUTES_API_KEY":    "cpk_x",
	"LEDGER_MINER_TIMEOUT":     "30s",
	"LEDGER_PRIVATE_ENDPOINTS": "true",
	"LEDGER_PPROF":             "true",
	"LEDGER_LOG_LEVEL":         "debug",
	"LEDGER_LOG_FORMAT":        "json",
	// Set by mistake, or by an older release's documentation: no
	// variable sets these.
	"LEDGER_FORCE":     "true",
	"LEDGER_OUT":       "/srv/ledger/hotkey.json",
	"LEDGER_NO_REEXEC": "true",
	"LEDGER_JSON":      "true",
	"LEDGER_DIR":       "/srv/chain",
}

// TestSharedEnvironment: one name meant different things in different
// commands, so a node's environment broke the commands run beside it:
// LEDGER_VALIDATOR=<address> failed "chain register" on ParseBool,
// LEDGER_GENESIS=<hex> had "chain serve" open a file named after it,
// LEDGER_LISTEN=<multiaddress> failed "serve". In every command, a node's
// environment sets no flag but the ones envVars gives it, and those
// without an error.
func TestSharedEnvironment(t *testing.T) {
	for k, v := range nodeEnvironment {
		t.Setenv(k, v)
	}
	root := newRootCmd()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if !c.Runnable() {
			return
		}
		name := commandName(c)
		if err := c.ParseFlags(nil); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := applyEnv(c); err != nil {
			t.Errorf("ledger %s in a node's environment: %v", name, err)
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Changed && envFor(name, f.Name) == "" {
				t.Errorf("ledger %s: the environment set --%s, which no variable sets there", name, f.Name)
			}
		})
	}
	walk(root)

	// The cases the review found, by name.
	for _, tc := range []struct{ command, flag string }{
		{"chain register", "validator"}, {"chain serve", "genesis"}, {"serve", "listen"},
		{"verify", "validator"}, {"verify", "data"}, {"keys new", "force"}, {"export", "out"},
		{"miner commit", "key"}, {"devnet", "dir"},
	} {
		if v := envFor(tc.command, tc.flag); v != "" {
			t.Errorf("%s sets --%s of ledger %s", v, tc.flag, tc.command)
		}
	}
	c, _, err := newRootCmd().Find([]string{"node"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.ParseFlags(nil); err != nil {
		t.Fatal(err)
	}
	if err := applyEnv(c); err != nil {
		t.Fatal(err)
	}
	for flag, want := range map[string][]string{
		"listen":    {"/ip4/0.0.0.0/tcp/4001", "/ip4/0.0.0.0/udp/4001/quic-v1"},
		"validator": {aliceAddress, devAddress},
	} {
		got, err := c.Flags().GetStringArray(flag)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("node --%s from %s: %q, %v; want %q", flag, envName(flag), got, err, want)
		}
	}
}

// TestEnvironmentRepeatableFlags: LEDGER_LISTEN="a,b" was one malformed
// multiaddress; a list is the flag given once per item, replacing its
// defaults as the flag does.
func TestEnvironmentRepeatableFlags(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  []string
	}{
		{"/ip4/127.0.0.1/tcp/4001", []string{"/ip4/127.0.0.1/tcp/4001"}},
		{"/ip4/127.0.0.1/tcp/4001,/ip4/127.0.0.1/udp/4001/quic-v1", []string{"/ip4/127.0.0.1/tcp/4001", "/ip4/127.0.0.1/udp/4001/quic-v1"}},
		{" /ip4/127.0.0.1/tcp/1 , ,/ip4/127.0.0.1/tcp/2,", []string{"/ip4/127.0.0.1/tcp/1", "/ip4/127.0.0.1/tcp/2"}},
	} {
		t.Setenv("LEDGER_LISTEN", tc.value)
		c, _, err := newRootCmd().Find([]string{"node"})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.ParseFlags(nil); err != nil {
			t.Fatal(err)
		}
		if err := applyEnv(c); err != nil {
			t.Fatalf("LEDGER_LISTEN=%q: %v", tc.value, err)
		}
		if got, _ := c.Flags().GetStringArray("listen"); !slices.Equal(got, tc.want) {
			t.Errorf("LEDGER_LISTEN=%q: --listen %q, want %q", tc.value, got, tc.want)
		}
	}
	t.Setenv("LEDGER_LISTEN", " , ")
	if code, _, errs := ledgerRun(t, "node", "--data", t.TempDir()); code != exitUsage || !strings.Contains(errs, "LEDGER_LISTEN") {
		t.Errorf("LEDGER_LISTEN of commas only: exit %d: %s", code, errs)
	}
}

// TestPeersInNodeEnvironment: "ledger peers" refused LEDGER_DATA and
// LEDGER_STATUS together, which a node's environment sets both of. The
// node's status endpoint is asked then; a flag on the command line wins
// over both variables.
func TestPeersInNodeEnvironment(t *testing.T) {
	fileStatus := node.Status{PeerID: "from-the-file", UpdatedAt: time.Unix(1, 0).UTC()}
	liveStatus := node.Status{PeerID: "from-the-endpoint", UpdatedAt: time.Unix(2, 0).UTC()}
	dir := t.TempDir()
	data, err := json.Marshal(fileStatus)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(node.StatusFile(dir), data, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(liveStatus)
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")

	t.Setenv("LEDGER_DATA", dir)
	t.Setenv("LEDGER_STATUS", addr)
	for _, tc := range []struct {
		args []string
		want string
		code int // the file's node does not run: its last status, exit 1
	}{
		{nil, "from-the-endpoint", exitOK},
		{[]string{"--data", dir}, "from-the-file", exitCheckFail},
		{[]string{"--status", addr}, "from-the-endpoint", exitOK},
	} {
		code, out, errs := ledgerRun(t, append([]string{"peers", "--json"}, tc.args...)...)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("peers %v with LEDGER_DATA and LEDGER_STATUS: exit %d, %s %s; want %s", tc.args, code, out, errs, tc.want)
		}
	}
	// Both flags on the command line are refused, as before.
	if code, _, errs := ledgerRun(t, "peers", "--data", dir, "--status", addr); code != exitUsage {
		t.Errorf("peers --data --status: exit %d: %s", code, errs)
	}
}
