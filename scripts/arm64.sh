#!/usr/bin/env bash
# make arm64: the linux/arm64 build under qemu's user-mode emulator, where
# the compiler fuses floating-point multiply-adds as it does for macOS on
# Apple silicon. First the tests of the packages that hold the network's
# rules and formats, compiled for arm64; then the commands auditors and
# miners run, against this build's answers (cmd/ledger/qemu_test.go).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
source scripts/rulepkgs.sh
QEMU=$(command -v qemu-aarch64-static || command -v qemu-aarch64)

echo "arm64: tests of ${RULE_PKGS[*]} under qemu"
GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $GO test -exec "$QEMU" -count=1 "${RULE_PKGS[@]}"
echo "arm64: the commands, against this build's answers"
LEDGER_ARM64=1 $GO test -count=1 -timeout 15m -run TestArm64BuildUnderQemu ./cmd/ledger/
