package main

// A run is one `go test -bench` invocation; several figures read its
// results. Benchtime is the default, overridden by the environment
// variable LEDGER_BENCHTIME_<KEY> (key in upper case): the defaults keep a
// whole report under about 15 minutes on a loaded 2-core machine.
type run struct {
	Key       string
	Pkg       string
	Bench     string // the -bench regexp
	Benchtime string
}

// A figure is one row of the report: a metric of one benchmark result
// beside the baseline the same benchmark measured in the same run, their
// ratio and the target it is held to.
type figure struct {
	// Name may hold {metric} placeholders, replaced by that metric of
	// the result (sizes that environment variables change).
	Name  string
	Run   string // run key
	Bench string // result name without the -GOMAXPROCS suffix
	Value metric
	// Baseline is the zero metric where the target is absolute and the
	// benchmark has nothing to compare with.
	Baseline metric
	// Ratio names the metric in which the benchmark reports value against
	// baseline on its own terms (a throughput ratio, a time ratio); when
	// empty the ratio is value / baseline.
	Ratio  string
	Target *target
}

// metric is a reported metric (by its unit in go test's output, such as
// "tx/s") and how it is shown.
type metric struct {
	Name  string
	Scale float64 // shown value = reported value * Scale; 0 means 1
	Unit  string  // shown unit; "" shows none
}

func (m metric) set() bool { return m.Name != "" }

func (m metric) scale() float64 {
	if m.Scale == 0 {
		return 1
	}
	return m.Scale
}

// target is a bound on a figure's value (in its shown unit) or on its
// ratio.
type target struct {
	OnRatio bool
	Cmp     string // one of ">=", "<=", "<", ">"
	Limit   float64
	Label   string // how the limit is written, if not as a number
}

func atLeast(limit float64) *target { return &target{OnRatio: true, Cmp: ">=", Limit: limit} }

var runs = []run{
	{Key: "append", Pkg: "./ledger/", Bench: "^BenchmarkAppend$", Benchtime: "5000x"},
	{Key: "verify", Pkg: "./verify/", Bench: "^BenchmarkVerify$", Benchtime: "6x"},
	{Key: "proof", Pkg: "./verify/", Bench: "^BenchmarkProofVerify$", Benchtime: "50000x"},
	{Key: "memory", Pkg: "./verify/", Bench: "^BenchmarkVerifyMemory$", Benchtime: "1x"},
	{Key: "gossip", Pkg: "./node/", Bench: "^BenchmarkPropagation$", Benchtime: "300x"},
	{Key: "backfill", Pkg: "./node/", Bench: "^BenchmarkBackfill$", Benchtime: "1x"},
	{Key: "duel", Pkg: "./duel/", Bench: "^BenchmarkSimulateStandard$", Benchtime: "1x"},
	{Key: "epoch", Pkg: "./vtrust/", Bench: "^BenchmarkEpoch64x256$", Benchtime: "30x"},
}

var figures = append(append(appendFigures(), verifyFigures()...), []figure{
	{
		Name: "proof check (Merkle) / SHA-256 of transcript", Run: "proof", Bench: "BenchmarkProofVerify/merkle",
		Value: metric{"us/proof", 1, "us"}, Baseline: metric{"sha256_us/proof", 1, "us"}, Ratio: "ratio_vs_sha256_of_transcript",
		Target: &target{Cmp: "<", Limit: 20},
	},
	{
		Name: "proof check (full: +block, sr25519) / SHA-256", Run: "proof", Bench: "BenchmarkProofVerify/full",
		Value: metric{"us/proof", 1, "us"}, Baseline: metric{"sha256_us/proof", 1, "us"}, Ratio: "ratio_vs_sha256_of_transcript",
	},
	{
		Name: "verify peak RSS, {large_transcripts} / {small_transcripts} transcripts", Run: "memory", Bench: "BenchmarkVerifyMemory",
		Value: metric{"large_peak_rss_MB", 1, "MB"}, Baseline: metric{"small_peak_rss_MB", 1, "MB"}, Ratio: "rss_large/small",
		Target: &target{OnRatio: true, Cmp: "<=", Limit: 1.5},
	},
	{
		Name: "verify peak live Go heap, {large_transcripts} / {small_transcripts} transcripts", Run: "memory", Bench: "BenchmarkVerifyMemory",
		Value: metric{"large_peak_live_heap_MB", 1, "MB"}, Baseline: metric{"small_peak_live_heap_MB", 1, "MB"}, Ratio: "live_heap_large/small",
		Target: &target{OnRatio: true, Cmp: "<=", Limit: 1.5},
	},
	{
		// Garbage included, so its peak depends on when the collector
		// ran: reported for scale (BenchmarkVerifyMemory).
		Name: "verify peak Go heap in use, {large_transcripts} / {small_transcripts} transcripts", Run: "memory", Bench: "BenchmarkVerifyMemory",
		Value: metric{"large_peak_heap_inuse_MB", 1, "MB"}, Baseline: metric{"small_peak_heap_inuse_MB", 1, "MB"}, Ratio: "heap_large/small",
	},
	{
		Name: "gossip p50, 10 nodes / local append p50", Run: "gossip", Bench: "BenchmarkPropagation",
		Value: metric{"p50-ms", 1, "ms"}, Baseline: metric{"local-append-p50-ms", 1, "ms"}, Ratio: "p50/local-append",
	},
	{
		Name: "gossip p99, 10 nodes / local append p99", Run: "gossip", Bench: "BenchmarkPropagation",
		Value: metric{"p99-ms", 1, "ms"}, Baseline: metric{"local-append-p99-ms", 1, "ms"},
		Target: &target{Cmp: "<", Limit: 100},
	},
	{
		Name: "backfill {transcripts} transcripts / export+import", Run: "backfill", Bench: "BenchmarkBackfill",
		Value: metric{"backfill-MB/s", 1, "MB/s"}, Baseline: metric{"export+import-MB/s", 1, "MB/s"}, Ratio: "backfill/export+import",
	},
	{
		Name: "duel challenges at rate 0.6 / fixed 400 per env", Run: "duel", Bench: "BenchmarkSimulateStandard",
		Value: metric{"mean-challenges", 1, ""}, Baseline: metric{"fixed-mean-challenges", 1, ""}, Ratio: "mean-challenges-vs-fixed",
		Target: &target{OnRatio: true, Cmp: "<=", Limit: 1.0 / 3, Label: "1/3"},
	},
	{
		Name: "duel power at rate 0.6 / fixed 400 per env", Run: "duel", Bench: "BenchmarkSimulateStandard",
		Value: metric{"power-%", 1, "%"}, Baseline: metric{"fixed-power-%", 1, "%"},
		Target: atLeast(1),
	},
	{
		Name: "false dethrones, worst boundary / fixed rule", Run: "duel", Bench: "BenchmarkSimulateStandard",
		Value: metric{"worst-false-dethrone-%", 1, "%"}, Baseline: metric{"worst-fixed-false-dethrone-%", 1, "%"},
		Target: &target{Cmp: "<=", Limit: 5},
	},
	{
		Name: "vTrust+Yuma epoch 64x256, wall", Run: "epoch", Bench: "BenchmarkEpoch64x256",
		Value: metric{"ns/op", 1e-6, "ms"}, Target: &target{Cmp: "<", Limit: 100},
	},
	{
		Name: "vTrust+Yuma epoch 64x256, CPU", Run: "epoch", Bench: "BenchmarkEpoch64x256",
		Value: metric{"cpu-of-100ms-target", 100, "ms"}, Target: &target{Cmp: "<", Limit: 100},
	},
}...)

// appendFigures: every reply size and writer count of BenchmarkAppend
// against raw Pebble batches of the same bytes (target: ratio >= 0.7).
func appendFigures() []figure {
	var out []figure
	for _, c := range []struct{ reply, writers, name string }{
		{"2KiB", "1", "2 KiB, 1 writer"}, {"2KiB", "64", "2 KiB, 64 writers"},
		{"16KiB", "1", "16 KiB, 1 writer"}, {"16KiB", "64", "16 KiB, 64 writers"},
	} {
		out = append(out, figure{
			Name: "append " + c.name + " / raw Pebble", Run: "append",
			Bench: "BenchmarkAppend/reply=" + c.reply + "/writers=" + c.writers,
			Value: metric{"tx/s", 1, "tx/s"}, Baseline: metric{"raw-tx/s", 1, "tx/s"}, Ratio: "ratio",
			Target: atLeast(0.7),
		})
	}
	return out
}

// verifyFigures: verify's throughput against SHA-256 over the same bytes
// (target without re-execution: ratio >= 0.5), by wall clock and, for the
// stores, by CPU time, which a shared machine measures more fairly.
func verifyFigures() []figure {
	mbs := func(name string) metric { return metric{name, 1, "MB/s"} }
	wall := func(name, sub string, t *target) figure {
		return figure{Name: name, Run: "verify", Bench: "BenchmarkVerify/" + sub,
			Value: mbs("verify_MB/s"), Baseline: mbs("sha256_MB/s"), Ratio: "ratio_wall", Target: t}
	}
	cpu := func(name, sub string) figure {
		return figure{Name: name, Run: "verify", Bench: "BenchmarkVerify/" + sub, Ratio: "ratio_cpu", Target: atLeast(0.5)}
	}
	return []figure{
		wall("verify 4 KiB store / SHA-256", "pad=4096/reexec=false", atLeast(0.5)),
		cpu("verify 4 KiB store / SHA-256, CPU time", "pad=4096/reexec=false"),
		wall("verify 4 KiB store, re-executing / SHA-256", "pad=4096/reexec=true", nil),
		wall("verify 4 KiB CAR / SHA-256", "pad=4096/car/reexec=false", atLeast(0.5)),
		wall("verify 32 KiB store / SHA-256", "pad=32768/reexec=false", atLeast(0.5)),
		cpu("verify 32 KiB store / SHA-256, CPU time", "pad=32768/reexec=false"),
		wall("verify 32 KiB CAR / SHA-256", "pad=32768/car/reexec=false", atLeast(0.5)),
	}
}
