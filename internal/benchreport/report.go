package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is what bench.json holds.
type Report struct {
	Command string      `json:"command"`
	Started time.Time   `json:"started"`
	Seconds float64     `json:"seconds"`
	Machine Machine     `json:"machine"`
	Runs    []RunReport `json:"runs"`
	Figures []Row       `json:"figures"`
}

// RunReport is one go test invocation and every result it printed.
type RunReport struct {
	Key       string   `json:"key"`
	Package   string   `json:"package"`
	Bench     string   `json:"bench"`
	Benchtime string   `json:"benchtime"`
	Command   string   `json:"command"`
	Seconds   float64  `json:"seconds"`
	Error     string   `json:"error,omitempty"`
	Results   []Result `json:"results"`
}

// Row is one evaluated figure. Value and baseline are in Unit; a null
// field was not measured (Error says why) or does not exist for the
// figure (a figure without a baseline, a ratio of zero baselines).
type Row struct {
	Figure    string   `json:"figure"`
	Package   string   `json:"package"`
	Benchmark string   `json:"benchmark"`
	Value     *float64 `json:"value"`
	Baseline  *float64 `json:"baseline"`
	Unit      string   `json:"unit,omitempty"`
	Ratio     *float64 `json:"ratio"`
	Target    string   `json:"target,omitempty"`
	// Met is null when the figure has no target or was not measured.
	Met   *bool  `json:"met"`
	Error string `json:"error,omitempty"`
}

// evaluate reads figure f from res, the result of its benchmark (nil if
// the benchmark printed none; runErr then says why, if the run failed).
func evaluate(f figure, pkg string, res *Result, runErr string) Row {
	row := Row{Figure: f.Name, Package: pkg, Benchmark: f.Bench, Unit: f.Value.Unit}
	if f.Target != nil {
		row.Target = f.Target.String(f.Value.Unit)
	}
	if res == nil {
		row.Error = "no result for " + f.Bench
		if runErr != "" {
			row.Error += " (its run failed: " + firstLine(runErr) + ")"
		}
		return row
	}
	row.Figure = expand(f.Name, res.Metrics)
	get := func(m metric) (*float64, bool) {
		v, ok := res.Metrics[m.Name]
		if !ok {
			row.Error = fmt.Sprintf("%s reported no metric %q", f.Bench, m.Name)
			return nil, false
		}
		v *= m.scale()
		return &v, true
	}
	var ok bool
	if f.Value.set() {
		if row.Value, ok = get(f.Value); !ok {
			return row
		}
	}
	if f.Baseline.set() {
		if row.Baseline, ok = get(f.Baseline); !ok {
			return row
		}
	}
	switch {
	case f.Ratio != "":
		if row.Ratio, ok = get(metric{Name: f.Ratio}); !ok {
			return row
		}
	case row.Value != nil && row.Baseline != nil:
		if r := *row.Value / *row.Baseline; !math.IsNaN(r) && !math.IsInf(r, 0) {
			row.Ratio = &r
		}
	}
	if f.Target == nil {
		return row
	}
	on := row.Value
	if f.Target.OnRatio {
		on = row.Ratio
	}
	if on == nil {
		row.Error = "the target's figure is undefined (zero baseline)"
		return row
	}
	met := f.Target.met(*on)
	row.Met = &met
	return row
}

func (t *target) met(v float64) bool {
	switch t.Cmp {
	case ">=":
		return v >= t.Limit
	case ">":
		return v > t.Limit
	case "<=":
		return v <= t.Limit
	case "<":
		return v < t.Limit
	}
	panic("benchreport: unknown comparison " + t.Cmp)
}

// String writes the target as the table shows it: "ratio >= 0.7",
// "< 20 us".
func (t *target) String(unit string) string {
	limit := t.Label
	if limit == "" {
		limit = strconv.FormatFloat(t.Limit, 'f', -1, 64)
	}
	if t.OnRatio {
		return "ratio " + t.Cmp + " " + limit
	}
	return strings.TrimSpace(t.Cmp + " " + limit + " " + unit)
}

// expand replaces each {metric} in name by that metric's value, written
// as a count (100000 as 100k).
func expand(name string, metrics map[string]float64) string {
	for {
		i := strings.IndexByte(name, '{')
		j := strings.IndexByte(name, '}')
		if i < 0 || j < i {
			return name
		}
		key := name[i+1 : j]
		s := "?"
		if v, ok := metrics[key]; ok {
			s = count(v)
		}
		name = name[:i] + s + name[j+1:]
	}
}

func count(v float64) string {
	switch {
	case v >= 1e6 && math.Mod(v, 1e6) == 0:
		return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
	case v >= 1e3 && math.Mod(v, 1e3) == 0:
		return strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// number writes v with about four significant digits, without exponents
// for the magnitudes benchmarks report.
func number(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case a >= 1 || a == 0:
		return strconv.FormatFloat(v, 'f', 3, 64)
	case a >= 1e-6: // three significant digits
		return strconv.FormatFloat(v, 'f', 2-int(math.Floor(math.Log10(a))), 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func withUnit(v *float64, unit string) string {
	if v == nil {
		return "-"
	}
	return strings.TrimSpace(number(*v) + " " + unit)
}

// WriteTable prints the report: a header naming the machine, one line per
// figure, a count of targets met and any errors.
func WriteTable(w io.Writer, rep Report) error {
	m := rep.Machine
	fmt.Fprintf(w, "ledger benchmarks %s: %s, %d cores, %s %s/%s, load average %s at start, %s at end, %.0f s\n\n",
		rep.Started.UTC().Format("2006-01-02 15:04 UTC"), m.CPU, m.NProc, m.GoVersion, m.GOOS, m.GOARCH, m.LoadStart, m.LoadEnd, rep.Seconds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tvalue\tbaseline\tratio\ttarget\tmet?")
	fmt.Fprintln(tw, "------\t-----\t--------\t-----\t------\t----")
	var met, targets int
	var errs []string
	for _, r := range rep.Figures {
		ratio := "-"
		if r.Ratio != nil {
			ratio = number(*r.Ratio)
		}
		status := "-"
		switch {
		case r.Error != "":
			status = "ERROR"
			errs = append(errs, r.Figure+": "+r.Error)
		case r.Met != nil && *r.Met:
			status = "yes"
		case r.Met != nil:
			status = "NO"
		}
		if r.Target != "" {
			targets++
			if r.Met != nil && *r.Met {
				met++
			}
		}
		target := r.Target
		if target == "" {
			target = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Figure, withUnit(r.Value, r.Unit), withUnit(r.Baseline, r.Unit), ratio, target, status)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%d of %d targets met.\n", met, targets)
	for _, e := range errs {
		fmt.Fprintln(w, "error:", e)
	}
	for _, r := range rep.Runs {
		if r.Error != "" {
			fmt.Fprintf(w, "\nrun %s failed: %s\n", r.Key, r.Error)
		}
	}
	return nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
