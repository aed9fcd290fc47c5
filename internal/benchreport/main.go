// Command benchreport runs the project's benchmarks and prints one report
// (make bench): each figure beside the baseline its benchmark measured in
// the same run, their ratio and the target, then writes the same as JSON
// (bench.json). The benchmarks and what is read from them are the tables
// in figures.go; BENCHMARKS.md records a run.
//
//	go run ./internal/benchreport [-o bench.json] [-only append,verify] [-v]
//
// LEDGER_BENCHTIME_<RUN> (for example LEDGER_BENCHTIME_APPEND=20000x)
// overrides a run's -benchtime. The verify benchmarks build their ledgers
// under LEDGER_BENCH_DIR, which is kept if set and is otherwise a
// temporary directory removed at the end.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	out := flag.String("o", "bench.json", "write the report as JSON to this file")
	only := flag.String("only", "", "run only these runs, comma-separated: "+strings.Join(runKeys(), ","))
	verbose := flag.Bool("v", false, "copy go test's output to stderr as it runs")
	flag.Parse()
	code, err := benchreport(*out, *only, *verbose)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(2)
	}
	os.Exit(code)
}

// benchreport runs the selected runs and reports; the exit code is 1 when
// a figure could not be measured. Targets not met are figures, not
// failures.
func benchreport(out, only string, verbose bool) (int, error) {
	selected, err := selectRuns(only)
	if err != nil {
		return 0, err
	}
	root, err := moduleRoot()
	if err != nil {
		return 0, err
	}
	env := os.Environ()
	if os.Getenv("LEDGER_BENCH_DIR") == "" {
		dir, err := os.MkdirTemp("", "benchreport-")
		if err != nil {
			return 0, err
		}
		defer os.RemoveAll(dir)
		env = append(env, "LEDGER_BENCH_DIR="+dir)
	}
	procs := runtime.GOMAXPROCS(0)
	rep := Report{Command: command(), Started: time.Now(), Machine: thisMachine()}
	results := map[string]map[string]Result{} // run key -> name -> result
	runErrs := map[string]string{}
	for i, r := range selected {
		bt := benchtime(r, os.Getenv)
		args := []string{"test", "-run", "^$", "-bench", r.Bench, "-benchtime", bt, "-count", "1", "-cpu", strconv.Itoa(procs), "-timeout", "30m", r.Pkg}
		rr := RunReport{Key: r.Key, Package: r.Pkg, Bench: r.Bench, Benchtime: bt, Command: "go " + shellJoin(args)}
		fmt.Fprintf(os.Stderr, "[%d/%d] %s: %s\n", i+1, len(selected), r.Key, rr.Command)
		start := time.Now()
		output, runErr := goTest(root, env, args, verbose)
		rr.Seconds = time.Since(start).Seconds()
		parsed, perr := Parse(bytes.NewReader(output), procs)
		rr.Results = parsed.Results
		switch {
		case runErr != nil:
			rr.Error = runErr.Error() + "\n" + tail(string(output), 20)
		case perr != nil:
			rr.Error = "parsing go test output: " + perr.Error()
		}
		if rr.Error != "" {
			runErrs[r.Key] = rr.Error
			fmt.Fprintf(os.Stderr, "      failed after %.0f s: %s\n", rr.Seconds, rr.Error)
		} else {
			fmt.Fprintf(os.Stderr, "      %.0f s, %d results\n", rr.Seconds, len(parsed.Results))
		}
		byName := map[string]Result{}
		for _, res := range parsed.Results {
			byName[res.Name] = res
		}
		results[r.Key] = byName
		rep.Runs = append(rep.Runs, rr)
	}
	rep.Seconds = time.Since(rep.Started).Seconds()
	rep.Machine.LoadEnd = loadAverage()
	rep.Figures = evaluateAll(selected, results, runErrs)

	if err := WriteTable(os.Stdout, rep); err != nil {
		return 0, err
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return 0, err
	}
	if err := os.WriteFile(out, append(data, '\n'), 0o644); err != nil {
		return 0, fmt.Errorf("writing the report: %w", err)
	}
	fmt.Fprintln(os.Stderr, "wrote", out)
	for _, row := range rep.Figures {
		if row.Error != "" {
			return 1, nil
		}
	}
	return 0, nil
}

// evaluateAll evaluates the figures of the selected runs, in table order.
func evaluateAll(selected []run, results map[string]map[string]Result, runErrs map[string]string) []Row {
	var rows []Row
	for _, f := range figures {
		i := slices.IndexFunc(selected, func(r run) bool { return r.Key == f.Run })
		if i < 0 {
			continue
		}
		var res *Result
		if r, ok := results[f.Run][f.Bench]; ok {
			res = &r
		}
		rows = append(rows, evaluate(f, selected[i].Pkg, res, runErrs[f.Run]))
	}
	return rows
}

// goTest runs go with args in dir and returns its standard output; its
// standard error (build errors) is added to a failure's message.
func goTest(dir string, env, args []string, verbose bool) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if verbose {
		cmd.Stdout = io.MultiWriter(&stdout, os.Stderr)
		cmd.Stderr = io.MultiWriter(&stderr, os.Stderr)
	}
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("go test: %w: %s", err, strings.TrimSpace(tail(stderr.String(), 20)))
	}
	return stdout.Bytes(), nil
}

func selectRuns(only string) ([]run, error) {
	if only == "" {
		return runs, nil
	}
	var out []run
	for _, key := range strings.Split(only, ",") {
		i := slices.IndexFunc(runs, func(r run) bool { return r.Key == strings.TrimSpace(key) })
		if i < 0 {
			return nil, fmt.Errorf("-only: no run %q (runs: %s)", key, strings.Join(runKeys(), ", "))
		}
		out = append(out, runs[i])
	}
	return out, nil
}

func runKeys() []string {
	var keys []string
	for _, r := range runs {
		keys = append(keys, r.Key)
	}
	return keys
}

// benchtime is r's -benchtime, or LEDGER_BENCHTIME_<KEY> if set.
func benchtime(r run, getenv func(string) string) string {
	if v := getenv("LEDGER_BENCHTIME_" + strings.ToUpper(r.Key)); v != "" {
		return v
	}
	return r.Benchtime
}

// moduleRoot is the directory of the main module's go.mod, so that the
// runs' package paths resolve wherever the command is started.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside the ledger module (go env GOMOD is empty)")
	}
	return filepath.Dir(mod), nil
}

// command is how this report was asked for, with the benchtime overrides
// that changed it.
func command() string {
	var parts []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "LEDGER_BENCH") {
			parts = append(parts, kv)
		}
	}
	parts = append(parts, "go run ./internal/benchreport")
	return strings.Join(append(parts, os.Args[1:]...), " ")
}

func shellJoin(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, "^$*?[]{}()|&;<> '\"\\") || a == "" {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		quoted[i] = a
	}
	return strings.Join(quoted, " ")
}

func tail(s string, lines int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > lines {
		ls = ls[len(ls)-lines:]
	}
	return strings.Join(ls, "\n")
}
