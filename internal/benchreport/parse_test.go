package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The files in testdata are go test output recorded on the project's
// machine (interleaved.txt from a throwaway benchmark that writes to
// stdout and stderr while it runs; build-failed.txt from a package another
// engineer was editing).
func TestParseRecorded(t *testing.T) {
	t.Parallel()
	type want struct {
		name   string
		n      int64
		metric string
		value  float64
	}
	for _, tc := range []struct {
		file    string
		pkg     string
		results int
		want    []want
		absent  []string // metrics the results must not have
	}{
		{"append.txt", "github.com/affine-ledger/ledger/ledger", 4, []want{
			{"BenchmarkAppend/reply=2KiB/writers=1", 20, "ratio", 0.43},
			{"BenchmarkAppend/reply=2KiB/writers=1", 20, "ns/op", 1271874},
			{"BenchmarkAppend/reply=2KiB/writers=1", 20, "MB/s", 2.99},
			{"BenchmarkAppend/reply=16KiB/writers=64", 20, "raw-tx/s", 2732},
			{"BenchmarkAppend/reply=16KiB/writers=64", 20, "tx/block", 1.053},
		}, nil},
		{"gossip.txt", "github.com/affine-ledger/ledger/node", 1, []want{
			{"BenchmarkPropagation", 20, "p99-ms", 15},
			{"BenchmarkPropagation", 20, "local-append-p99-ms", 5.055},
		}, []string{"ns/op"}},
		{"verify-memory-proof.txt", "github.com/affine-ledger/ledger/verify", 3, []want{
			{"BenchmarkProofVerify/merkle", 1, "us/proof", 22},
			{"BenchmarkProofVerify/full", 1, "sha256_us/proof", 14.57},
			// ns/op runs into the iteration count's tab: "1\t17233234691".
			{"BenchmarkVerifyMemory", 1, "ns/op", 66801780777},
			{"BenchmarkVerifyMemory", 1, "rss_large/small", 1.062},
			{"BenchmarkVerifyMemory", 1, "large_transcripts", 1e6},
		}, nil},
		{"verify.txt", "github.com/affine-ledger/ledger/verify", 5, []want{
			{"BenchmarkVerify/pad=4096/reexec=false", 1, "ratio_wall", 0.05751},
			{"BenchmarkVerify/pad=4096/reexec=true", 1, "ns/op", 13110187402},
			{"BenchmarkVerify/pad=32768/car/reexec=false", 1, "verify_MB/s", 64.95},
		}, nil},
		{"epoch.txt", "github.com/affine-ledger/ledger/vtrust", 1, []want{
			{"BenchmarkEpoch64x256", 3, "ns/op", 156903441},
			{"BenchmarkEpoch64x256", 3, "allocs/op", 5286},
			{"BenchmarkEpoch64x256", 3, "cpu-of-100ms-target", 0.3961},
		}, nil},
		{"backfill.txt", "github.com/affine-ledger/ledger/node", 1, []want{
			{"BenchmarkBackfill", 1, "backfill/export+import", 0.2752},
			{"BenchmarkBackfill", 1, "transcripts", 2000},
		}, []string{"ns/op"}},
		{"duel.txt", "github.com/affine-ledger/ledger/duel", 1, []want{
			{"BenchmarkSimulateStandard", 1, "mean-challenges", 354.1},
			{"BenchmarkSimulateStandard", 1, "worst-false-dethrone-%", 3.45},
		}, nil},
		{"interleaved.txt", "interleave", 2, []want{
			{"BenchmarkNoisy", 5, "p50-ms", 12.5},
			{"BenchmarkNoisy", 5, "ns/op", 17156},
			{"BenchmarkQuiet", 5, "ratio", 3},
		}, nil},
		{"build-failed.txt", "", 0, nil, nil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			out := parseFile(t, tc.file, 2)
			if out.Pkg != tc.pkg || len(out.Results) != tc.results {
				t.Fatalf("pkg %q with %d results, want %q with %d: %+v", out.Pkg, len(out.Results), tc.pkg, tc.results, out.Results)
			}
			if tc.results > 0 && out.CPU != "AMD EPYC" {
				t.Errorf("cpu %q", out.CPU)
			}
			for _, w := range tc.want {
				res := find(out.Results, w.name)
				if res == nil {
					t.Fatalf("no result %s in %+v", w.name, out.Results)
				}
				if res.N != w.n || res.Procs != 2 || res.Metrics[w.metric] != w.value {
					t.Errorf("%s: n=%d procs=%d %s=%v, want n=%d procs=2 %v", w.name, res.N, res.Procs, w.metric, res.Metrics[w.metric], w.n, w.value)
				}
			}
			for _, res := range out.Results {
				for _, m := range tc.absent {
					if _, ok := res.Metrics[m]; ok {
						t.Errorf("%s has metric %s", res.Name, m)
					}
				}
			}
		})
	}
}

func TestParseLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		procs int
		in    string
		want  []string // result names, in order
	}{
		{"one proc has no suffix", 1, "BenchmarkA\t10\t5 ns/op\nBenchmarkB/x=1   \t 3\t 2.5 ratio\n", []string{"BenchmarkA", "BenchmarkB/x=1"}},
		{"suffix of another GOMAXPROCS", 4, "BenchmarkA-2\t10\t5 ns/op\n", nil},
		{"odd figures", 2, "BenchmarkA-2\t10\t5 ns/op 7\n", nil},
		{"not a number", 2, "BenchmarkA-2\t10\tNaN ns/op\nBenchmarkB-2\t10\t+Inf ns/op\nBenchmarkC-2\t10\tfive ns/op\n", nil},
		{"metric twice", 2, "BenchmarkA-2\t10\t5 ns/op\t6 ns/op\n", nil},
		{"zero iterations", 2, "BenchmarkA-2\t0\t5 ns/op\n", nil},
		{"count without figures", 2, "BenchmarkA-2\t10\n", nil},
		{"figures after output", 2, "BenchmarkA-2   \tstarting 3 nodes\n  12\t5 ns/op\n", []string{"BenchmarkA"}},
		{"name line alone", 2, "BenchmarkA-2   \t\nlog\n  12\t5 ns/op\n", []string{"BenchmarkA"}},
		{"stray count line without a name", 2, "  12\t5 ns/op\n", nil},
		{"text starting with Benchmark is no name", 2, "Benchmarks follow\n  12\t5 ns/op\n", nil},
		{"a new package forgets the name", 2, "BenchmarkA-2   \tlog\npkg: other\n  12\t5 ns/op\n", nil},
		{"carriage returns", 2, "BenchmarkA-2\t10\t5 ns/op\r\n", []string{"BenchmarkA"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := Parse(strings.NewReader(tc.in), tc.procs)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range out.Results {
				got = append(got, r.Name)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("results %q, want %q", got, tc.want)
			}
		})
	}
}

// FuzzParse: any output parses without a panic, and every result has a
// positive count, a name the input holds with its suffix, and finite
// figures.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"append.txt", "interleaved.txt", "verify-memory-proof.txt"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := Parse(strings.NewReader(in), 2)
		if err != nil {
			return
		}
		for _, r := range out.Results {
			if r.N <= 0 || r.Procs != 2 || len(r.Metrics) == 0 || !strings.Contains(in, r.Name+"-2") {
				t.Fatalf("bad result %+v", r)
			}
			for unit, v := range r.Metrics {
				if math.IsNaN(v) || math.IsInf(v, 0) || unit == "" {
					t.Fatalf("bad figure %q=%v in %+v", unit, v, r)
				}
			}
		}
	})
}

func parseFile(t *testing.T, name string, procs int) Output {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, err := Parse(f, procs)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func find(results []Result, name string) *Result {
	for i := range results {
		if results[i].Name == name {
			return &results[i]
		}
	}
	return nil
}
