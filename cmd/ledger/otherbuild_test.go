package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/envs/registry"
	"github.com/affine-ledger/ledger/internal/syncbuf"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// otherBuild is a build of ledger for another system, run here under an
// emulator: Windows under Wine (wine_test.go), linux/arm64 under qemu
// (qemu_test.go).
type otherBuild struct {
	// name names the build in messages.
	name string
	// emulator runs exe; env is the environment it runs in.
	emulator string
	exe      string
	env      []string
	// path names a path of this machine as the build does.
	path func(string) string
	// tempDir is the build's temporary directory, once it ran.
	tempDir func(t *testing.T) string
}

// buildLedger builds the ledger command for goos/goarch at exe.
func buildLedger(t *testing.T, goos, goarch, exe string) {
	t.Helper()
	build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", exe, ".")
	build.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build ledger for %s/%s: %v: %s", goos, goarch, err, out)
	}
}

// command is the build's ledger with args, not started.
func (b *otherBuild) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, b.emulator, append([]string{b.exe}, args...)...)
	cmd.Env = b.env
	return cmd
}

// run runs the build's ledger with args and returns its exit code and
// outputs.
func (b *otherBuild) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := b.command(ctx, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errb.String()
	case errors.As(err, &exit) && ctx.Err() == nil:
		return exit.ExitCode(), out.String(), errb.String()
	default:
		t.Fatalf("%s: ledger %v: %v: %s %s", b.name, args, err, out.String(), errb.String())
		return 0, "", ""
	}
}

// checkOtherBuild runs build b through the commands auditors and miners
// run (verify of a store and of an archive, export, import, transcripts,
// prove, consistency, verify-proof, ratio show, vtrust show, serve, env
// test, duel simulate), on stores this build wrote (one of verifytest's,
// and a devnet's with real duels), and requires the answers this build
// gives: the same reports (re-execution included, so every env generates
// there the challenges it generates here), byte for byte the same
// archive, proofs, ratios, epoch and explorer pages, a store written by b
// that verifies and exports here as the original does, a damaged store
// failing with the same failure, bad usage refused with exit 2, and no
// scratch store left behind.
func checkOtherBuild(t *testing.T, b *otherBuild) {
	spec := verifytest.Spec{Validators: 2, Blocks: 5, PerBlock: 7, Decisions: true}
	dir, _ := storeOf(t, &spec)
	tmp := t.TempDir()

	t.Run("verify", func(t *testing.T) {
		want := reportOf(t, 0)(ledgerRun(t, "verify", "--data", dir, "--json"))
		got := reportOf(t, 0)(b.run(t, "verify", "--data", b.path(dir), "--json"))
		sameJSON(t, b.name, "verify --json", got, want)
		if want["transcripts"] != float64(spec.Validators*spec.Blocks*spec.PerBlock) {
			t.Fatalf("this build's report counts %v transcripts", want["transcripts"])
		}
	})

	car := filepath.Join(tmp, "linux.car")
	otherCar := filepath.Join(tmp, "other.car")
	t.Run("export", func(t *testing.T) {
		mustRun(t, "this build: export")(ledgerRun(t, "export", "--data", dir, "--out", car))
		mustRun(t, b.name+": export")(b.run(t, "export", "--data", b.path(dir), "--out", b.path(otherCar)))
		sameFile(t, b.name, otherCar, car)
		want := reportOf(t, 0)(ledgerRun(t, "verify", "--car", car, "--json"))
		got := reportOf(t, 0)(b.run(t, "verify", "--car", b.path(car), "--json"))
		sameJSON(t, b.name, "verify --car --json", got, want)
	})

	t.Run("import", func(t *testing.T) {
		imported := filepath.Join(tmp, "imported")
		mustRun(t, b.name+": import")(b.run(t, "import", "--data", b.path(imported), "--car", b.path(car)))
		// The store the other build wrote, read here.
		want := reportOf(t, 0)(ledgerRun(t, "verify", "--data", dir, "--json", "--no-reexec"))
		got := reportOf(t, 0)(ledgerRun(t, "verify", "--data", imported, "--json", "--no-reexec"))
		sameJSON(t, b.name, "verify of the store "+b.name+" imported", got, want)
		again := filepath.Join(tmp, "again.car")
		mustRun(t, "this build: export of the imported store")(ledgerRun(t, "export", "--data", imported, "--out", again))
		sameFile(t, "this build", again, car)
	})

	miner := verifytest.Miner(1).String()
	t.Run("transcripts", func(t *testing.T) {
		want := mustRun(t, "this build: transcripts")(ledgerRun(t, "transcripts", "--data", dir, "--miner", miner, "--json"))
		got := mustRun(t, b.name+": transcripts")(b.run(t, "transcripts", "--data", b.path(dir), "--miner", miner, "--json"))
		if got != want {
			t.Fatalf("transcripts --json differ:\n%s: %s\nthis build: %s", b.name, got, want)
		}
	})

	t.Run("proofs", func(t *testing.T) {
		rows := minerRows(t, dir, miner)
		tr := rows[len(rows)/2]
		v := tr.Validator.String()
		proofs := []struct {
			name string
			args []string
		}{
			{"prove", []string{"prove", "--data", dir, "--transcript", tr.Transcript}},
			{"consistency", []string{"consistency", "--data", dir, "--validator", v, "--from", "1", "--to", "4"}},
		}
		for _, p := range proofs {
			mine := filepath.Join(tmp, p.name+"-linux.json")
			theirs := filepath.Join(tmp, p.name+"-other.json")
			mustRun(t, "this build: "+p.name)(ledgerRun(t, append(p.args, "--out", mine)...))
			otherArgs := append([]string(nil), p.args...)
			otherArgs[2] = b.path(dir)
			mustRun(t, b.name+": "+p.name)(b.run(t, append(otherArgs, "--out", b.path(theirs))...))
			sameFile(t, b.name, theirs, mine)
			out := mustRun(t, b.name+": verify-proof")(b.run(t, "verify-proof", b.path(mine)))
			if !strings.HasPrefix(out, "ok: ") {
				t.Fatalf("%s: verify-proof of the %s proof: %q", b.name, p.name, out)
			}
		}
		// A proof whose transcript is not its CID's.
		raw, err := os.ReadFile(filepath.Join(tmp, "prove-linux.json"))
		if err != nil {
			t.Fatal(err)
		}
		var proof map[string]any
		if err := json.Unmarshal(raw, &proof); err != nil {
			t.Fatal(err)
		}
		proof["cid"] = rows[0].Transcript
		bad := filepath.Join(tmp, "bad-proof.json")
		writeJSONFile(t, bad, proof)
		wantCode, _, _ := ledgerRun(t, "verify-proof", bad)
		code, out, errs := b.run(t, "verify-proof", b.path(bad))
		if wantCode != 1 || code != wantCode {
			t.Fatalf("a proof of another CID: %s exits %d (this build %d): %s %s", b.name, code, wantCode, out, errs)
		}
	})

	t.Run("damage", func(t *testing.T) {
		damaged := filepath.Join(tmp, "damaged")
		copyDir(t, dir, damaged)
		rows := minerRows(t, damaged, miner)
		swapTranscriptBytes(t, damaged, rows[1], rows[2])
		want := reportOf(t, 1)(ledgerRun(t, "verify", "--data", damaged, "--json"))
		got := reportOf(t, 1)(b.run(t, "verify", "--data", b.path(damaged), "--json"))
		sameJSON(t, b.name, "verify --json of a damaged store", got, want)
		if n := len(want["failures"].([]any)); n != 1 {
			t.Fatalf("this build reports %d failures, want 1", n)
		}
	})

	t.Run("usage", func(t *testing.T) {
		for _, args := range [][]string{
			{"verify", "--data", b.path(dir), "--from"},
			{"verify", "--car", b.path(car), "--validator", verifytest.Key(0).Public().String()},
			{"transcripts", "--data", b.path(dir), "--miner", "x"},
		} {
			if code, out, errs := b.run(t, args...); code != 2 || errs == "" {
				t.Errorf("%s: %v: exit %d, want 2 and a message: %s %s", b.name, args, code, out, errs)
			}
		}
	})

	// Every env's challenge of one seed, scored against one answer, and a
	// duel simulation: Wilson bounds and the sequential rule's looks.
	t.Run("envs and duels", func(t *testing.T) {
		seed := strings.Repeat("5e", 32)
		var cmds [][]string
		for _, env := range registry.Names() {
			cmds = append(cmds, []string{"env", "test", "--env", env, "--seed", seed, "--answer", "<move>5</move>", "--json"})
		}
		cmds = append(cmds, []string{"env", "list", "--json"},
			[]string{"duel", "simulate", "--json", "--duels", "300", "--seed", "other builds"})
		for _, args := range cmds {
			code, want, _ := ledgerRun(t, args...)
			otherCode, got, errs := b.run(t, args...)
			if otherCode != code || got != want || want == "" {
				t.Errorf("%v: %s exits %d, this build %d:\n%s: %.400s\nthis build: %.400s\n%s", args, b.name, otherCode, code, b.name, got, want, errs)
			}
		}
	})

	// A devnet's store: real duels, their results and re-execution
	// outcomes, every env played by reference miners over HTTP.
	t.Run("devnet", func(t *testing.T) {
		net := filepath.Join(tmp, "net")
		var out, errb bytes.Buffer
		if code := run([]string{"devnet", "--dir", net, "--validators", "2", "--miners", "2", "--duration", "100s"}, &out, &errb); code != 0 {
			t.Fatalf("devnet: exit %d: %s", code, errb.String())
		}
		store := filepath.Join(net, "v0")
		want := reportOf(t, 0)(ledgerRun(t, "verify", "--data", store, "--json"))
		got := reportOf(t, 0)(b.run(t, "verify", "--data", b.path(store), "--json"))
		sameJSON(t, b.name, "verify --json of a devnet store", got, want)
		mine := mustRun(t, "this build: ratio show")(ledgerRun(t, "ratio", "show", "--data", store, "--json"))
		theirs := mustRun(t, b.name+": ratio show")(b.run(t, "ratio", "show", "--data", b.path(store), "--json"))
		if theirs != mine || !strings.Contains(mine, `"winner"`) {
			t.Fatalf("ratio show --json differ, or show no duel:\n%s: %s\nthis build: %s", b.name, theirs, mine)
		}
		sameExplorer(t, b, store)
		sameVtrust(t, b, store, filepath.Join(net, "chain"))
	})

	// Every verify and import above made a scratch store in the build's
	// temporary directory, and removed it (internal/rmtree says why that
	// takes more than os.RemoveAll under Wine).
	tempDir := b.tempDir(t)
	left, err := filepath.Glob(filepath.Join(tempDir, "ledger-verify-*"))
	if err != nil || len(left) > 0 {
		t.Fatalf("%s: scratch left behind in %s: %v %v", b.name, tempDir, left, err)
	}
}

// lookFirst returns the first of names found on PATH, or as a path.
func lookFirst(names ...string) (string, error) {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// mustRun returns a check of a command's result: exit 0, its stdout.
func mustRun(t *testing.T, what string) func(int, string, string) string {
	t.Helper()
	return func(code int, out, errs string) string {
		t.Helper()
		if code != 0 {
			t.Fatalf("%s: exit %d: %s %s", what, code, out, errs)
		}
		return out
	}
}

// reportOf returns a reader of `verify --json` output that requires exit
// code want and drops the report's seconds, the one field that differs
// between two runs.
func reportOf(t *testing.T, want int) func(int, string, string) map[string]any {
	t.Helper()
	return func(code int, out, errs string) map[string]any {
		t.Helper()
		var rep map[string]any
		if err := json.Unmarshal([]byte(out), &rep); err != nil || code != want {
			t.Fatalf("verify: exit %d (want %d), %v: %s %s", code, want, err, out, errs)
		}
		if _, ok := rep["seconds"]; !ok {
			t.Fatalf("verify --json without seconds: %s", out)
		}
		delete(rep, "seconds")
		return rep
	}
}

// sameJSON requires got, from build, to be want, from this build.
func sameJSON(t *testing.T, build, what string, got, want map[string]any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Fatalf("%s differ:\n%s: %s\nthis build: %s", what, build, g, w)
	}
}

// sameFile requires the file got, written by build, to hold want's bytes.
func sameFile(t *testing.T, build, got, want string) {
	t.Helper()
	g, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(g, w) {
		t.Fatalf("%s (%d bytes, by %s) differs from %s (%d bytes)", got, len(g), build, want, len(w))
	}
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyDir copies the regular files of the directory tree src to dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, raw, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// sameExplorer serves store with this build and with build b
// (`ledger serve` on loopback) and requires the same answer from both for
// every kind of page of the JSON API, the explorer's page and its script.
func sameExplorer(t *testing.T, b *otherBuild, store string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	addrRE := regexp.MustCompile(`explorer at http://(\S+)/`)

	var out syncbuf.Buffer
	root := newRootCmd()
	root.SetArgs([]string{"serve", "--data", store, "--listen", "127.0.0.1:0"})
	root.SetOut(&out)
	root.SetErr(&out)
	serveCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(serveCtx) }()
	defer func() { stop(); <-done }()
	mine := waitFor(t, ctx, &out, addrRE)

	var otherOut syncbuf.Buffer
	cmd := b.command(ctx, "serve", "--data", b.path(store), "--listen", "127.0.0.1:0")
	cmd.Stdout, cmd.Stderr = &otherOut, &otherOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	theirs := waitFor(t, ctx, &otherOut, addrRE)

	get := func(addr, path string) (int, []byte) {
		t.Helper()
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body
	}
	// first reads the first item of a page at path into v.
	first := func(path string, v any) {
		t.Helper()
		_, body := get(mine, path)
		var page struct{ Items []json.RawMessage }
		if err := json.Unmarshal(body, &page); err != nil || len(page.Items) == 0 {
			t.Fatalf("%s: no items (%v): %s", path, err, body)
		}
		if err := json.Unmarshal(page.Items[0], v); err != nil {
			t.Fatal(err)
		}
	}
	var val struct {
		Validator string `json:"validator"`
		Height    uint64 `json:"height"`
		Block     string `json:"block"`
	}
	first("/api/v1/validators", &val)
	var tr struct {
		Transcript string `json:"cid"`
	}
	first("/api/v1/validators/"+val.Validator+"/transcripts", &tr)
	var miner struct {
		Hotkey string `json:"hotkey"`
	}
	first("/api/v1/miners", &miner)
	var duel struct {
		Record string `json:"record"`
	}
	first("/api/v1/duels", &duel)

	missing := map[string]bool{
		"/api/v1/transcripts/bafyreigbtj4x7ip5legnfznufuopl4sg4knzc2cof6duas4b3q2fy6swua": true,
		"/api/v1/nowhere": true,
	}
	pages := []string{
		"/", "/js/app.js", "/healthz",
		"/api/v1/status", "/api/v1/validators",
		"/api/v1/validators/" + val.Validator,
		"/api/v1/validators/" + val.Validator + "/blocks",
		fmt.Sprintf("/api/v1/validators/%s/blocks/%d", val.Validator, val.Height),
		"/api/v1/validators/" + val.Validator + "/transcripts?limit=5",
		"/api/v1/blocks/" + val.Block,
		"/api/v1/transcripts/" + tr.Transcript,
		"/api/v1/transcripts/" + tr.Transcript + "/proof",
		"/api/v1/miners",
		"/api/v1/miners/" + miner.Hotkey,
		"/api/v1/miners/" + miner.Hotkey + "/transcripts?env=sat",
		"/api/v1/duels",
		"/api/v1/duels/" + duel.Record,
		"/api/v1/duels/" + duel.Record + "/transcripts",
		"/api/v1/vtrust", "/api/v1/leaderboard", "/api/v1/forks",
	}
	for path := range missing {
		pages = append(pages, path)
	}
	for _, path := range pages {
		code, want := get(mine, path)
		if (code == http.StatusOK) == missing[path] || len(want) == 0 {
			t.Errorf("GET %s: this build answers %d with %d bytes", path, code, len(want))
		}
		otherCode, got := get(theirs, path)
		if otherCode != code || !bytes.Equal(got, want) {
			t.Errorf("GET %s: %s %d (%d bytes), this build %d (%d bytes):\n%[2]s: %.300[7]s\nthis build: %.300[8]s", path, b.name, otherCode, len(got), code, len(want), got, want)
		}
	}
}

// sameVtrust requires build's `vtrust show --json` of store, its epochs
// read from the devnet's chain (served again from chainDir, with no block
// made meanwhile), to be this build's: re-execution, decision agreement,
// the consensus walk from the epoch's first champion, Yuma and the
// weights, over a chain client on loopback.
func sameVtrust(t *testing.T, b *otherBuild, store, chainDir string) {
	t.Helper()
	spec := serveChain(t, "--dir", chainDir, "--manual")
	var last struct {
		Epoch  uint64 `json:"epoch"`
		Output struct {
			Duels []struct {
				Champion struct {
					Hotkey string `json:"hotkey"`
				} `json:"champion"`
			} `json:"duels"`
			Weights struct {
				UIDs []int `json:"uids"`
			} `json:"weights"`
		} `json:"output"`
	}
	out := mustRun(t, "this build: vtrust show")(ledgerRun(t, "vtrust", "show", "--data", store, "--chain", spec, "--json"))
	if err := json.Unmarshal([]byte(out), &last); err != nil || last.Epoch == 0 || len(last.Output.Duels) == 0 {
		t.Fatalf("this build: vtrust show --json: no epoch or duel (%v): %s", err, out)
	}
	args := []string{"vtrust", "show", "--chain", spec, "--epoch", strconv.FormatUint(last.Epoch, 10),
		"--champion", last.Output.Duels[0].Champion.Hotkey, "--json", "--data"}
	mine := mustRun(t, "this build: vtrust show --epoch")(ledgerRun(t, append(args, store)...))
	if err := json.Unmarshal([]byte(mine), &last); err != nil || len(last.Output.Weights.UIDs) == 0 {
		t.Fatalf("this build: vtrust show from the duel's champion sets no weight (%v): %s", err, mine)
	}
	theirs := mustRun(t, b.name+": vtrust show --epoch")(b.run(t, append(args, b.path(store))...))
	if theirs != mine {
		t.Fatalf("vtrust show --json of epoch %d differ:\n%s: %s\nthis build: %s", last.Epoch, b.name, theirs, mine)
	}
}
