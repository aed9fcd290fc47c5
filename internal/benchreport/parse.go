package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Result is one benchmark's result line of `go test -bench` output.
type Result struct {
	// Name is the benchmark's full name without the -GOMAXPROCS suffix.
	Name  string `json:"name"`
	Procs int    `json:"procs"`
	N     int64  `json:"n"`
	// Metrics holds every value by its unit: ns/op, B/op, MB/s and each
	// b.ReportMetric unit.
	Metrics map[string]float64 `json:"metrics"`
}

// Output is what a go test run printed that the report uses.
type Output struct {
	Pkg     string
	CPU     string
	Results []Result
}

// Parse reads go test's standard output for benchmarks run with
// GOMAXPROCS procs (the suffix go test appends to names when procs > 1).
// Anything that is not a result or a header line is skipped: test logs,
// "--- BENCH" blocks, PASS and ok lines, and lines that look like results
// but do not parse as one (a benchmark that is missing then shows as
// missing in the report, by name). A benchmark's name and its figures
// normally share one line, but go test prints the name before the
// benchmark runs, so anything the benchmark writes to stdout or stderr
// lands after the name and pushes the figures onto a later line; such a
// line is credited to the last name seen.
func Parse(r io.Reader, procs int) (Output, error) {
	var out Output
	var pending string // a name whose figures have not been seen yet
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		raw := sc.Text()
		text := strings.TrimRight(raw, " \t\r")
		switch {
		case strings.HasPrefix(text, "pkg: "):
			out.Pkg = strings.TrimPrefix(text, "pkg: ")
			pending = ""
		case strings.HasPrefix(text, "cpu: "):
			out.CPU = strings.TrimPrefix(text, "cpu: ")
		case strings.HasPrefix(text, "Benchmark"):
			fields := strings.Fields(text)
			if res, err := result(fields[0], fields[1:], procs); err == nil {
				out.Results = append(out.Results, res)
				pending = ""
				continue
			}
			if isNameLine(raw, fields[0], procs) {
				pending = fields[0]
			}
		default:
			fields := strings.Fields(text)
			if pending == "" {
				continue
			}
			if res, err := result(pending, fields, procs); err == nil {
				out.Results = append(out.Results, res)
				pending = ""
			}
		}
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("reading go test output: %w", err)
	}
	return out, nil
}

// isNameLine reports whether raw is go test's name line printed before a
// benchmark runs ("BenchmarkX-2   \t"), alone or followed by what the
// benchmark wrote, rather than output that merely starts with
// "Benchmark".
func isNameLine(raw, name string, procs int) bool {
	if procs > 1 && !strings.HasSuffix(name, "-"+strconv.Itoa(procs)) {
		return false
	}
	return strings.HasPrefix(strings.TrimLeft(raw[len(name):], " "), "\t")
}

// result parses a result's fields: the iteration count, then value and
// unit pairs.
func result(name string, fields []string, procs int) (Result, error) {
	res := Result{Name: name, Procs: 1, Metrics: map[string]float64{}}
	if len(fields) < 3 || !isCount(fields[0]) {
		return res, fmt.Errorf("benchmark %s: not an iteration count and figures", name)
	}
	if procs > 1 {
		suffix := "-" + strconv.Itoa(procs)
		if !strings.HasSuffix(name, suffix) {
			return res, fmt.Errorf("benchmark %s: name lacks the -%d GOMAXPROCS suffix", name, procs)
		}
		res.Name, res.Procs = strings.TrimSuffix(name, suffix), procs
	}
	n, err := strconv.ParseInt(fields[0], 10, 64)
	if err != nil || n <= 0 {
		return res, fmt.Errorf("benchmark %s: iteration count %q is not a positive integer", name, fields[0])
	}
	res.N = n
	pairs := fields[1:]
	if len(pairs)%2 != 0 {
		return res, fmt.Errorf("benchmark %s: %q: figures do not come in value and unit pairs", name, strings.Join(pairs, " "))
	}
	for i := 0; i < len(pairs); i += 2 {
		v, err := strconv.ParseFloat(pairs[i], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return res, fmt.Errorf("benchmark %s: value %q of %s is not a finite number", name, pairs[i], pairs[i+1])
		}
		unit := pairs[i+1]
		if _, dup := res.Metrics[unit]; dup {
			return res, fmt.Errorf("benchmark %s: metric %s appears twice", name, unit)
		}
		res.Metrics[unit] = v
	}
	return res, nil
}

func isCount(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
