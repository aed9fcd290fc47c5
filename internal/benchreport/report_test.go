package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
)

// recorded names the testdata file holding each run's recorded output.
var recorded = map[string]string{
	"append":   "append.txt",
	"verify":   "verify.txt",
	"proof":    "verify-memory-proof.txt",
	"memory":   "verify-memory-proof.txt",
	"gossip":   "gossip.txt",
	"backfill": "backfill.txt",
	"duel":     "duel.txt",
	"epoch":    "epoch.txt",
}

// TestFiguresReadRecordedOutput evaluates every figure of the table on
// real output of its benchmark: a renamed metric or sub-benchmark fails
// here rather than in a 15-minute run.
func TestFiguresReadRecordedOutput(t *testing.T) {
	t.Parallel()
	results := map[string]map[string]Result{}
	for _, r := range runs {
		file, ok := recorded[r.Key]
		if !ok {
			t.Fatalf("run %s has no recorded output", r.Key)
		}
		byName := map[string]Result{}
		for _, res := range parseFile(t, file, 2).Results {
			byName[res.Name] = res
		}
		results[r.Key] = byName
	}
	rows := evaluateAll(runs, results, nil)
	if len(rows) != len(figures) {
		t.Fatalf("%d rows for %d figures", len(rows), len(figures))
	}
	for _, row := range rows {
		hasRatio := row.Baseline != nil || strings.Contains(row.Figure, "CPU time")
		if row.Error != "" || (row.Ratio != nil) != hasRatio || (row.Target != "") != (row.Met != nil) || strings.ContainsAny(row.Figure, "{}?") {
			t.Errorf("%+v", row)
		}
	}
}

func TestFigureTable(t *testing.T) {
	t.Parallel()
	names := map[string]bool{}
	used := map[string]bool{}
	for _, f := range figures {
		if names[f.Name] {
			t.Errorf("two figures named %q", f.Name)
		}
		names[f.Name] = true
		i := -1
		for j, r := range runs {
			if r.Key == f.Run {
				i = j
			}
		}
		if i < 0 {
			t.Errorf("%s: no run %q", f.Name, f.Run)
			continue
		}
		used[f.Run] = true
		// The run's -bench regexp selects the figure's top-level benchmark.
		top, _, _ := strings.Cut(f.Bench, "/")
		if !regexp.MustCompile(runs[i].Bench).MatchString(top) {
			t.Errorf("%s: run %s (-bench %s) does not run %s", f.Name, f.Run, runs[i].Bench, top)
		}
		if !f.Value.set() && f.Ratio == "" {
			t.Errorf("%s shows nothing", f.Name)
		}
		if f.Target != nil && !strings.Contains(">= > <= <", f.Target.Cmp) {
			t.Errorf("%s: comparison %q", f.Name, f.Target.Cmp)
		}
	}
	for _, r := range runs {
		if !used[r.Key] {
			t.Errorf("run %s feeds no figure", r.Key)
		}
	}
}

func TestEvaluate(t *testing.T) {
	t.Parallel()
	res := &Result{Name: "BenchmarkX", N: 10, Procs: 2, Metrics: map[string]float64{
		"tx/s": 700, "raw-tx/s": 1000, "ratio": 0.75, "ns/op": 42e6, "zero": 0, "n": 50000,
	}}
	v := func(f float64) *float64 { return &f }
	f := func(mod func(*figure)) figure {
		fig := figure{Name: "x", Bench: "BenchmarkX", Value: metric{"tx/s", 1, "tx/s"}, Baseline: metric{"raw-tx/s", 1, "tx/s"}}
		mod(&fig)
		return fig
	}
	for _, tc := range []struct {
		name     string
		fig      figure
		res      *Result
		runErr   string
		value    *float64 // nil: none
		baseline *float64
		ratio    *float64
		met      string // "yes", "no", "" for none
		err      string // substring of the row's error
	}{
		{name: "ratio computed", fig: f(func(*figure) {}), res: res, value: v(700), baseline: v(1000), ratio: v(0.7)},
		{name: "ratio metric wins", fig: f(func(f *figure) { f.Ratio = "ratio" }), res: res, value: v(700), baseline: v(1000), ratio: v(0.75)},
		{name: "ratio target met at the limit", fig: f(func(f *figure) { f.Target = atLeast(0.7) }), res: res, value: v(700), baseline: v(1000), ratio: v(0.7), met: "yes"},
		{name: "ratio target not met", fig: f(func(f *figure) { f.Target = atLeast(0.8) }), res: res, value: v(700), baseline: v(1000), ratio: v(0.7), met: "no"},
		{name: "strict bound", fig: f(func(f *figure) { f.Target = &target{Cmp: "<", Limit: 700} }), res: res, value: v(700), baseline: v(1000), ratio: v(0.7), met: "no"},
		{name: "value bound", fig: f(func(f *figure) { f.Target = &target{Cmp: "<=", Limit: 700} }), res: res, value: v(700), baseline: v(1000), ratio: v(0.7), met: "yes"},
		{name: "scaled, no baseline", fig: f(func(f *figure) {
			f.Value, f.Baseline, f.Target = metric{"ns/op", 1e-6, "ms"}, metric{}, &target{Cmp: "<", Limit: 100}
		}), res: res, value: v(42), met: "yes"},
		{name: "zero baseline leaves no ratio", fig: f(func(f *figure) { f.Baseline = metric{"zero", 1, ""} }), res: res, value: v(700), baseline: v(0)},
		{name: "zero baseline fails a ratio target", fig: f(func(f *figure) { f.Baseline, f.Target = metric{"zero", 1, ""}, atLeast(1) }),
			res: res, value: v(700), err: "undefined"},
		{name: "missing metric", fig: f(func(f *figure) { f.Baseline = metric{"raw-MB/s", 1, ""} }), res: res, value: v(700), err: `no metric "raw-MB/s"`},
		{name: "missing ratio metric", fig: f(func(f *figure) { f.Ratio = "ratio_cpu" }), res: res, value: v(700), baseline: v(1000), err: `no metric "ratio_cpu"`},
		{name: "no result", fig: f(func(*figure) {}), runErr: "go test: exit status 1: build failed\nmore", err: "no result for BenchmarkX (its run failed: go test: exit status 1: build failed)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			row := evaluate(tc.fig, "./x/", tc.res, tc.runErr)
			if tc.err != "" {
				if !strings.Contains(row.Error, tc.err) || row.Met != nil {
					t.Fatalf("error %q met %v, want error %q", row.Error, row.Met, tc.err)
				}
			} else if row.Error != "" {
				t.Fatal(row.Error)
			}
			check := func(what string, got, want *float64) {
				if (want == nil) != (got == nil) || got != nil && *got != *want {
					t.Errorf("%s %v, want %v", what, deref(got), deref(want))
				}
			}
			if tc.res != nil {
				check("value", row.Value, tc.value)
			}
			if tc.err == "" {
				check("baseline", row.Baseline, tc.baseline)
				check("ratio", row.Ratio, tc.ratio)
				met := ""
				if row.Met != nil {
					met = map[bool]string{true: "yes", false: "no"}[*row.Met]
				}
				if met != tc.met {
					t.Errorf("met %q, want %q", met, tc.met)
				}
			}
		})
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestNames(t *testing.T) {
	t.Parallel()
	m := map[string]float64{"n": 100000, "m": 1e6, "k": 2500, "x": 12.5}
	for in, want := range map[string]string{
		"backfill {n} / {m}": "backfill 100k / 1M",
		"{k} and {x}":        "2500 and 12.5",
		"{missing} left":     "? left",
		"no braces }{":       "no braces }{",
	} {
		if got := expand(in, m); got != want {
			t.Errorf("expand(%q) = %q, want %q", in, got, want)
		}
	}
	for v, want := range map[float64]string{12345.6: "12346", 123.45: "123.5", 12.345: "12.35", 1.5: "1.500", 0: "0.000",
		0.7: "0.700", 0.03452: "0.0345", 0.00001234: "0.0000123", 1.234e-9: "1.23e-09", -0.5: "-0.500"} {
		if got := number(v); got != want {
			t.Errorf("number(%v) = %q, want %q", v, got, want)
		}
	}
	for _, tc := range []struct {
		t    target
		unit string
		want string
	}{
		{target{OnRatio: true, Cmp: ">=", Limit: 0.7}, "tx/s", "ratio >= 0.7"},
		{target{OnRatio: true, Cmp: "<=", Limit: 1.0 / 3, Label: "1/3"}, "", "ratio <= 1/3"},
		{target{Cmp: "<", Limit: 20}, "us", "< 20 us"},
		{target{Cmp: "<=", Limit: 5}, "", "<= 5"},
	} {
		if got := tc.t.String(tc.unit); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.t, got, tc.want)
		}
	}
}

func TestWriteTable(t *testing.T) {
	t.Parallel()
	v := func(f float64) *float64 { return &f }
	yes, no := true, false
	rep := Report{
		Started: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC), Seconds: 61,
		Machine: Machine{CPU: "AMD EPYC", NProc: 2, GoVersion: "go1.26.8", GOOS: "linux", GOARCH: "amd64", LoadStart: "1.00 2.00 3.00", LoadEnd: "4.00 5.00 6.00"},
		Runs:    []RunReport{{Key: "gossip", Error: "go test: exit status 1"}},
		Figures: []Row{
			{Figure: "append / raw", Value: v(700), Baseline: v(1000), Unit: "tx/s", Ratio: v(0.7), Target: "ratio >= 0.7", Met: &yes},
			{Figure: "epoch", Value: v(142.5), Unit: "ms", Target: "< 100 ms", Met: &no},
			{Figure: "backfill / export+import", Value: v(6.6), Baseline: v(5.2), Unit: "MB/s", Ratio: v(1.281)},
			{Figure: "gossip p99", Unit: "ms", Target: "< 100 ms", Error: "no result for BenchmarkPropagation"},
		},
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, rep); err != nil {
		t.Fatal(err)
	}
	want := `ledger benchmarks 2025-03-01 12:00 UTC: AMD EPYC, 2 cores, go1.26.8 linux/amd64, load average 1.00 2.00 3.00 at start, 4.00 5.00 6.00 at end, 61 s

figure                    value       baseline    ratio  target        met?
------                    -----       --------    -----  ------        ----
append / raw              700.0 tx/s  1000 tx/s   0.700  ratio >= 0.7  yes
epoch                     142.5 ms    -           -      < 100 ms      NO
backfill / export+import  6.600 MB/s  5.200 MB/s  1.281  -             -
gossip p99                -           -           -      < 100 ms      ERROR

1 of 3 targets met.
error: gossip p99: no result for BenchmarkPropagation

run gossip failed: go test: exit status 1
`
	if buf.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestBenchtimeOverride(t *testing.T) {
	t.Parallel()
	r := run{Key: "append", Benchtime: "5000x"}
	env := map[string]string{"LEDGER_BENCHTIME_APPEND": "20x"}
	if got := benchtime(r, func(k string) string { return env[k] }); got != "20x" {
		t.Errorf("override: %q", got)
	}
	if got := benchtime(r, func(string) string { return "" }); got != "5000x" {
		t.Errorf("default: %q", got)
	}
	if _, err := selectRuns("append, duel"); err != nil {
		t.Error(err)
	}
	if _, err := selectRuns("append,nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown run: %v", err)
	}
}
