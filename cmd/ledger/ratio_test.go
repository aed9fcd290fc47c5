package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// ratioResult makes a duel result between two miners at block start: the
// contender wins every challenge when win, loses every one otherwise.
func ratioResult(t *testing.T, champion, contender byte, start uint64, ratio uint32, win bool) []byte {
	t.Helper()
	rule := duel.Rule{ZMilli: 1960, Looks: []uint32{8, 16}, MaxChallenges: 40}
	side := func(b byte) duel.Side { return duel.Side{Hotkey: keys.PublicKey{b}, ModelHash: duel.HexBytes{b, b}} }
	in := duel.Input{Start: duel.Anchor{Number: start, Hash: duel.Hash{byte(start)}}, Champion: side(champion), Contender: side(contender), Rule: rule, RatioPPM: ratio}
	o := duel.Loss
	if win {
		o = duel.Win
	}
	// The first look (8) decides each env: all losses for the champion,
	// 7 wins in 8 (Wilson lower bound 0.529) for the contender, with a
	// rate of 875000.
	const n = 8
	for _, env := range []string{"abd", "mult8", "sat"} {
		e := duel.EnvInput{Env: env}
		for c := uint64(0); c < n; c++ {
			id, err := challenge.Derive([32]byte{byte(start)}, [32]byte{7}, env, 1, c)
			if err != nil {
				t.Fatal(err)
			}
			oc := o
			if win && c == 3 {
				oc = duel.Loss
			}
			e.Samples = append(e.Samples, duel.Sample{ID: id, Outcome: oc})
		}
		in.Envs = append(in.Envs, e)
	}
	r, err := duel.Recompute(in)
	if err != nil {
		t.Fatal(err)
	}
	raw, _, err := duel.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func ratioStore(t *testing.T, results ...[]byte) (dir string, v keys.PublicKey) {
	t.Helper()
	dir = t.TempDir()
	s, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	k, err := keys.FromURI("//Alice")
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.NewAppender(k)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for i, r := range results {
		if _, err := a.Append(context.Background(), record.Anchor{Number: uint64(10_000 * (i + 1))}, nil, [][]byte{r}); err != nil {
			t.Fatal(err)
		}
	}
	return dir, k.Public()
}

func runRatio(args ...string) (stdout, stderr string, code int) {
	var out, errOut bytes.Buffer
	code = run(append([]string{"ratio", "show"}, args...), &out, &errOut)
	return out.String(), errOut.String(), code
}

func TestRatioShow(t *testing.T) {
	p := duel.DefaultFrontierParams()
	floor := p.Floor()
	// 1 is the first champion; 2 dethrones it at block 10 (rates 7/8:
	// the ratio set is 875000); 3 then loses against 2 at block 7210, one
	// half-life later, against 520000 + 355000/2.
	first := ratioResult(t, 1, 2, 10, floor, true)
	second := ratioResult(t, 2, 3, 7210, floor+(875_000-floor)/2, false)
	dir, v := ratioStore(t, first, second)

	out, stderr, code := runRatio("--data", dir, "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var reps []struct {
		Validator string `json:"validator"`
		At        uint64 `json:"at"`
		Champion  struct {
			Hotkey string `json:"hotkey"`
		} `json:"champion"`
		SetPPM    uint32 `json:"set_ppm"`
		SetAt     uint64 `json:"set_at"`
		RatioPPM  uint32 `json:"ratio_ppm"`
		Dethrones int    `json:"dethrones"`
		Reigns    int    `json:"reigns"`
		Duels     []struct {
			RatioPPM uint32 `json:"ratio_ppm"`
			Winner   string `json:"winner"`
		} `json:"duels"`
	}
	if err := json.Unmarshal([]byte(out), &reps); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(reps) != 1 {
		t.Fatalf("%d reports", len(reps))
	}
	r := reps[0]
	// The head's anchor is block 20000, 19990 blocks after the dethrone.
	want := p.RatioAt(875_000, 19_990)
	if r.Validator != v.String() || r.Champion.Hotkey != (keys.PublicKey{2}).String() || r.SetPPM != 875_000 || r.SetAt != 10 ||
		r.At != 20_000 || r.RatioPPM != want || r.Dethrones != 1 || r.Reigns != 1 || len(r.Duels) != 2 || r.Duels[1].RatioPPM != 697_500 {
		t.Fatalf("report %+v, want champion 2 set 875000 at 10, ratio %d at 20000", r, want)
	}

	text, _, code := runRatio("--data", dir, "--validator", v.String())
	if code != exitOK || !strings.Contains(text, "champion "+(keys.PublicKey{2}).String()) || !strings.Contains(text, "2 duels, 1 dethrones, 1 reigns") {
		t.Fatalf("exit %d:\n%s", code, text)
	}

	// A result run against another ratio than the one in force fails the
	// check.
	wrong := ratioResult(t, 2, 3, 7210, floor, false)
	dir, _ = ratioStore(t, first, wrong)
	if _, stderr, code := runRatio("--data", dir); code != exitCheckFail || !strings.Contains(stderr, "in force") {
		t.Fatalf("wrong ratio: exit %d: %s", code, stderr)
	}
	if _, _, code := runRatio("--data", t.TempDir()); code != exitUsage {
		t.Fatalf("empty directory: exit %d", code)
	}
	if _, _, code := runRatio("--data", dir, "--validator", "nope"); code != exitUsage {
		t.Fatalf("bad hotkey: exit %d", code)
	}
}

// TestRatioShowNodeDataDir: --data takes a store or a node's data
// directory, for ratio show as for every other store command.
func TestRatioShowNodeDataDir(t *testing.T) {
	t.Parallel()
	store, _ := builtLedger(t)
	nodeDir := filepath.Dir(store) // builtLedger puts the store in DIR/store
	if code, out, errs := ledgerRun(t, "ratio", "show", "--data", nodeDir, "--json"); code != 0 {
		t.Fatalf("ratio show --data NODEDIR: exit %d: %s %s", code, out, errs)
	}
}

// TestRatioShowEmptyStore: a store with no chain printed nothing at all
// and exited 0, as if the command had not run; it says so on stderr, as
// transcripts does, and --json is an empty array.
func TestRatioShowEmptyStore(t *testing.T) {
	t.Parallel()
	dir, _ := storeOf(t, nil)
	out, errs, code := runRatio("--data", dir)
	if code != exitOK || out != "" || !strings.Contains(errs, "no chain") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 0 and stderr saying the store holds no chain", code, out, errs)
	}
	out, _, code = runRatio("--data", dir, "--json")
	if code != exitOK || strings.TrimSpace(out) != "[]" {
		t.Errorf("--json: exit %d, %q; want []", code, out)
	}
}
