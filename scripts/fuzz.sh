#!/usr/bin/env bash
# Runs every Go fuzz target in the module for $FUZZTIME each (go test can
# fuzz only one target of one package per invocation), and says how many
# inputs each target ran.
#
# FUZZPKGS narrows the packages (default ./...); FUZZFEW is the count of
# inputs under which a target is listed at the end (default 100).
#
# FUZZMINIMIZE bounds how long the fuzzer minimizes an input that found new
# coverage (go test -fuzzminimizetime; Go's default is 60s). A test binary
# that links Pebble or libp2p carries coverage counters for all of it, and
# minimizing one transcript took longer than a whole short run: on 2 cores,
# 3 s runs of the ledger's block and transcript decoders executed 15-756
# inputs with Go's default, 5500-7400 with 100x. (Those decoders have since
# moved to ledger/record, which links neither, and run 4-6 times faster.)
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-3s}
minimize=${FUZZMINIMIZE:-100x}
# A target that runs fewer inputs than this is named at the end: it is
# fuzzed in name only (a slow target, or a local corpus so large that the
# run ends while the fuzzer replays it).
few=${FUZZFEW:-100}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
count=0
total=0
starved=()

fuzz_once() {
	go test -run '^$' -fuzz "^$2\$" -fuzztime "$3" -fuzzminimizetime "$minimize" "$1" >"$log" 2>&1
}

# fuzz runs target $2 of package $1 for $3; it exits the script on a failure.
fuzz() {
	if fuzz_once "$@"; then
		return
	fi
	# Go's fuzz coordinator sometimes reports "context deadline exceeded"
	# when -fuzztime runs out while a worker is busy, with no failing input
	# (go.dev/issue/75804, fixed in Go 1.27): that is the engine, not the
	# target, and the run is repeated once. A real failure writes its input.
	if grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log"; then
		echo "fuzz $1 $2: engine timeout without a failing input, running again"
		fuzz_once "$@" && return
	fi
	cat "$log"
	exit 1
}

# execs is how many inputs the last run executed, from the coordinator's
# last progress line; 0 if it ended while it replayed the corpus.
execs() {
	local n
	n=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || true)
	echo "${n:-0}"
}

for pkg in $(go list ${FUZZPKGS:-./...}); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	targets=$(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' || true)
	for target in $targets; do
		# Named before it runs, so that a run that hangs shows which.
		echo "fuzz $pkg $target ($fuzztime)"
		fuzz "$pkg" "$target" "$fuzztime"
		n=$(execs)
		if [ "$n" -eq 0 ] && [[ $fuzztime =~ ^([0-9]+)s$ ]]; then
			# -fuzztime includes replaying the corpus first, which for a
			# target with a large one (the codec's round trips, hundreds of
			# seeds in a binary that links Pebble) can take the whole run:
			# it gets four times as long.
			long=$((BASH_REMATCH[1] * 4))s
			echo "  no input fuzzed in $fuzztime (replaying the corpus took it all): running for $long"
			fuzz "$pkg" "$target" "$long"
			n=$(execs)
		fi
		echo "  $n inputs"
		if [ "$n" -lt "$few" ]; then
			starved+=("$pkg $target ($n)")
		fi
		total=$((total + n))
		count=$((count + 1))
	done
done
echo "fuzz: $count passed, 0 failed, $total inputs run"
if [ ${#starved[@]} -gt 0 ]; then
	echo "fuzz: ${#starved[@]} targets ran fewer than $few inputs; a longer FUZZTIME would fuzz them (or, if their corpus in \$(go env GOCACHE)/fuzz has grown large, go clean -fuzzcache):"
	printf '  %s\n' "${starved[@]}"
fi
