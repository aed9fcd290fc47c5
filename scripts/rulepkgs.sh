# Sourced by scripts/windows.sh and scripts/arm64.sh: the packages that hold
# the network's rules and formats, whose tests run on the emulated builds.
RULE_PKGS=(./envs/... ./challenge/... ./rng/... ./duel/... ./vtrust/... ./yuma/... ./decisions/... ./codec/... ./ledger/record/...)
