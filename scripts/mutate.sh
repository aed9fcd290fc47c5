#!/usr/bin/env bash
# Mutation testing with gremlins (a pinned version): each covered
# comparison, arithmetic operator and increment of the packages named is
# changed, one at a time, in a copy of the module, and the package's own
# tests run against the change. A mutant that LIVED is a change no test
# noticed: read it, then add the test, or note why it changes nothing
# (a capacity hint, a fast path with a slower one behind it, a bound no
# valid input reaches).
#
# Usage: scripts/mutate.sh [PKG...]   (default ./ledger/record ./codec)
# MUTATE_WORKERS sets the parallel runs (default: the CPU count).
#
# The tests run -short (the crash and fault tests' minutes are left out)
# and uncached: gremlins gives each mutant a multiple of the coverage
# run's time, and a cached coverage run of a few seconds made every
# mutant of the ledger package "time out".
set -euo pipefail
cd "$(dirname "$0")/.."
gobin=$(go env GOPATH)/bin
GOBIN=$gobin go install github.com/go-gremlins/gremlins/cmd/gremlins@v0.5.0
workers=${MUTATE_WORKERS:-$(nproc)}
[ $# -gt 0 ] || set -- ./ledger/record ./codec
for pkg in "$@"; do
	echo "== $pkg"
	GOFLAGS="-short -failfast -count=1" "$gobin/gremlins" unleash --workers "$workers" --timeout-coefficient 3 "$pkg" |
		tr '\r' '\n' | { grep -a -E 'LIVED|TIMED OUT|NOT VIABLE|^(Killed|Test efficacy|Mutator)' || true; }
done
