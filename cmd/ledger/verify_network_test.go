package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// TestVerifyNetwork: the report names the ledger's network; --genesis and
// --netuid assert it, or a part of it, for a store and an archive alike.
func TestVerifyNetwork(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	car := filepath.Join(t.TempDir(), "l.car")
	if code, out, errs := ledgerRun(t, "export", "--data", dir, "--out", car); code != 0 {
		t.Fatalf("export: %d %s %s", code, out, errs)
	}
	n := recordtest.Network
	genesis, netuid := n.Genesis.String(), fmt.Sprint(n.Netuid)
	other := record.Network{Genesis: sha256.Sum256([]byte("another chain")), Netuid: n.Netuid + 1}

	code, out, errs := ledgerRun(t, "verify", "--data", dir, "--json")
	var rep struct {
		Network *record.Network `json:"network"`
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || rep.Network == nil || *rep.Network != n {
		t.Fatalf("exit %d (%v), network %v, want %s: %s %s", code, err, rep.Network, n, out, errs)
	}
	code, out, _ = ledgerRun(t, "verify", "--data", dir)
	if want := fmt.Sprintf("network: netuid %d of the chain of genesis hash %s\n", n.Netuid, genesis); code != 0 || !strings.Contains(out, want) {
		t.Fatalf("text output (exit %d) does not say %q: %s", code, want, out)
	}

	for _, tc := range []struct {
		args []string
		code int
		want []string // in the output
	}{
		{[]string{"--genesis", genesis, "--netuid", netuid}, 0, nil},
		{[]string{"--netuid", netuid}, 0, nil},
		{[]string{"--genesis", genesis}, 0, nil},
		{[]string{"--genesis", other.Genesis.String(), "--netuid", netuid}, 1,
			[]string{"block of " + n.String() + ", the ledger is of " + (record.Network{Genesis: other.Genesis, Netuid: n.Netuid}).String()}},
		{[]string{"--netuid", fmt.Sprint(other.Netuid)}, 1,
			[]string{"block of " + n.String() + ", the ledger is of netuid " + fmt.Sprint(other.Netuid) + " of any chain"}},
	} {
		for _, src := range [][]string{{"--data", dir}, {"--car", car}} {
			args := append(append([]string{"verify", "--no-reexec"}, src...), tc.args...)
			code, out, errs := ledgerRun(t, args...)
			if code != tc.code {
				t.Fatalf("%v: exit %d, want %d: %s %s", args, code, tc.code, out, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Fatalf("%v: output does not say %q: %s", args, w, out)
				}
			}
		}
	}
	// The store records its network: an assertion that contradicts it
	// fails the store itself, naming both.
	code, out, _ = ledgerRun(t, "verify", "--data", dir, "--genesis", other.Genesis.String(), "--netuid", fmt.Sprint(other.Netuid))
	if want := "FAIL ledger: the store records its network as " + n.String() + ", the ledger is asserted to be of " + other.String(); code != 1 || !strings.Contains(out, want) {
		t.Fatalf("exit %d, output does not say %q: %s", code, want, out)
	}
	if want := "network: netuid " + fmt.Sprint(other.Netuid); !strings.Contains(out, want) {
		t.Fatalf("the summary does not name the network asserted (%q): %s", want, out)
	}
}

func TestVerifyNetworkUsage(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"--genesis", "xyz"}, "--genesis"},
		{[]string{"--genesis", strings.Repeat("ab", 31)}, "--genesis"},
		{[]string{"--genesis", strings.Repeat("00", 32), "--netuid", "1"}, "--genesis"},
		{[]string{"--genesis", ""}, "--genesis"},
		{[]string{"--netuid", "-1"}, "--netuid"},
		{[]string{"--netuid", "65536"}, "--netuid"},
		{[]string{"--netuid", "one"}, "--netuid"},
	} {
		args := append([]string{"verify", "--data", dir}, tc.args...)
		if code, out, errs := ledgerRun(t, args...); code != 2 || !strings.Contains(errs, tc.flag) {
			t.Fatalf("%v: exit %d, want 2 naming %s: %s %s", args, code, tc.flag, out, errs)
		}
	}
}

// TestImportOfAnotherNetwork: a store takes an archive of its own network
// only; the verifier names the other one.
func TestImportOfAnotherNetwork(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	car := filepath.Join(t.TempDir(), "l.car")
	if code, out, errs := ledgerRun(t, "export", "--data", dir, "--out", car); code != 0 {
		t.Fatalf("export: %d %s %s", code, out, errs)
	}
	other := record.Network{Genesis: sha256.Sum256([]byte("another chain")), Netuid: recordtest.Network.Netuid}
	dst := filepath.Join(t.TempDir(), "store")
	s, err := ledger.Open(dst, ledger.WithNetwork(other))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	code, out, errs := ledgerRun(t, "import", "--data", dst, "--car", car, "--no-reexec")
	if want := "block of " + recordtest.Network.String() + ", the ledger is of " + other.String(); code != 1 || !strings.Contains(errs, want) {
		t.Fatalf("exit %d, stderr does not say %q: %s %s", code, want, out, errs)
	}
}

// TestGenesisAllZeros: --genesis of 64 zeros is bad usage saying the hash
// is all zeros, for each command that asserts a network, not a
// "malformed record" the flag never made.
func TestGenesisAllZeros(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	zeros := strings.Repeat("0", 64)
	for _, args := range [][]string{
		{"verify", "--data", dir, "--genesis", zeros},
		{"verify-proof", "--genesis", zeros, filepath.Join(dir, "none.json")},
	} {
		code, _, errs := ledgerRun(t, args...)
		if code != exitUsage || !strings.Contains(errs, "--genesis: the hash is all zeros") || strings.Contains(errs, "malformed") {
			t.Errorf("%v: exit %d, %q; want 2 saying the hash is all zeros", args, code, errs)
		}
	}
}
