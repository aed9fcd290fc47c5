#!/usr/bin/env bash
# make windows: the Windows (amd64) build under Wine. First the tests of the
# packages that hold the network's rules and formats (the envs and their
# vectors, challenge IDs, the random stream, duel, vTrust and Yuma arithmetic,
# the decision records' rule, the encoding and the records), compiled for
# Windows; then the commands auditors and miners run there, against the
# Linux build's answers (cmd/ledger/wine_test.go). Packages whose tests use
# t.TempDir are not run here: Go 1.26's os.RemoveAll fails under Wine 8
# (internal/rmtree), so each such test would fail its cleanup.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
source scripts/rulepkgs.sh

prefix=$(mktemp -d -t ledger-wine-XXXXXX)
cleanup() {
	WINEPREFIX=$prefix wineserver -k >/dev/null 2>&1 || true
	rm -rf "$prefix"
}
trap cleanup EXIT
# Go's runtime needs bcryptprimitives.dll, which Wine 8 lacks
# (cmd/ledger/testdata/wine/bcryptprimitives.c).
mkdir -p "$prefix/drive_c/windows/system32"
x86_64-w64-mingw32-gcc -shared -O2 -o "$prefix/drive_c/windows/system32/bcryptprimitives.dll" \
	cmd/ledger/testdata/wine/bcryptprimitives.c -ladvapi32
export WINEPREFIX=$prefix WINEDEBUG=-all
wine wineboot --init >/dev/null 2>&1 || true

echo "windows: tests of ${RULE_PKGS[*]} under Wine"
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $GO test -exec wine -count=1 "${RULE_PKGS[@]}"
echo "windows: the commands, against the Linux build's answers"
LEDGER_WINDOWS=1 $GO test -count=1 -timeout 15m -run TestWindowsBuildUnderWine ./cmd/ledger/
