# Two commands on a fresh machine: `make demo` and `make test`.
GO       ?= go
BIN      := bin/ledger
FUZZTIME ?= 3s
# How long the fuzzer may minimize an input that found new coverage
# (scripts/fuzz.sh says why it is bounded).
FUZZMINIMIZE ?= 100x
PKGS     := ./...

.PHONY: build test cross windows arm64 unit interop interop-spec interop-p2p fuzz fuzz-long mutate soak bench demo lint vectors clean

build:
	$(GO) build -o $(BIN) ./cmd/ledger

# The test command CI runs: the other systems' builds, the Windows build
# under Wine and the arm64 one under qemu, the interop checks, every package
# under the race detector, then a short run of every fuzz target.
test: cross windows arm64 interop unit fuzz

# Every package's tests run on Linux (some also on the emulated builds
# below); every package, tests included, must still build and vet for the
# systems auditors and miners run verify and prove on. Seconds with a warm build cache; a fresh one compiles every
# dependency once per system (minutes).
CROSS ?= windows/amd64 windows/arm64 darwin/arm64 freebsd/amd64
cross:
	@for t in $(CROSS); do \
		echo "cross: go vet for $$t"; \
		GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) vet $(PKGS) || exit 1; \
	done

# The Windows build under Wine (scripts/windows.sh): the tests of the packages
# that hold the rules and formats, then the commands auditors and miners have
# there, which must answer as the Linux build does. Needs Debian's wine64, and
# gcc-mingw-w64-x86-64-win32 for the DLL shim Wine 8 lacks.
windows:
	@if command -v wine >/dev/null && command -v x86_64-w64-mingw32-gcc >/dev/null; then \
		GO=$(GO) scripts/windows.sh; \
	else echo "windows: wine or x86_64-w64-mingw32-gcc not found, skipped (Debian: wine64 gcc-mingw-w64-x86-64-win32)"; fi

# The linux/arm64 build under qemu (scripts/arm64.sh), where floating-point
# multiply-adds are fused as on Apple silicon: the same tests and commands as
# make windows. Needs Debian's qemu-user-static.
arm64:
	@if command -v qemu-aarch64-static >/dev/null || command -v qemu-aarch64 >/dev/null; then \
		GO=$(GO) scripts/arm64.sh; \
	else echo "arm64: qemu-aarch64-static not found, skipped (Debian: qemu-user-static)"; fi

unit:
	$(GO) test -race -count=1 -timeout 30m $(PKGS)

# Checks against independent JavaScript implementations (npm): spec/vectors through
# @ipld/dag-cbor, @noble/hashes and @scure/sr25519, the environments re-implemented from
# spec/envs alone, and a js-libp2p node on the gossip topic.
interop: interop-spec interop-p2p

interop-spec:
	@if command -v node >/dev/null && command -v npm >/dev/null; then \
		cd spec/interop && npm ci --no-audit --no-fund --loglevel=error && node encoding.mjs && node ledger.mjs && node envs.mjs; \
	else echo "interop: node/npm not found, skipped"; fi

# A js-libp2p node joins a Go node's gossip on loopback (spec/p2p.md): it
# receives a block and checks it, and publishes one the Go node must store.
interop-p2p:
	@if command -v node >/dev/null && command -v npm >/dev/null; then \
		cd interop && npm ci --no-audit --no-fund --loglevel=error && \
		LEDGER_INTEROP_P2P=1 $(GO) test -count=1 -timeout 120s -v -run TestJSNodeReceivesABlock . ; \
	else echo "interop-p2p: node/npm not found, skipped"; fi

fuzz:
	FUZZTIME=$(FUZZTIME) FUZZMINIMIZE=$(FUZZMINIMIZE) scripts/fuzz.sh

fuzz-long:
	FUZZTIME=60s FUZZMINIMIZE=1000x scripts/fuzz.sh

# Mutation testing of the record and codec layers (scripts/mutate.sh names
# others: MUTATE_PKGS="./archive ./verify/proofs" make mutate).
mutate:
	scripts/mutate.sh $(MUTATE_PKGS)

# Every benchmark the targets are about, in one report (BENCHMARKS.md); figures
# also go to bench.json. LEDGER_BENCHTIME_<RUN>=Nx changes a run's -benchtime.
# Long variants (hours): the fault, crash, tampering, adversarial-network,
# hostile-miner and devnet tests repeated with more cases, every fuzz target
# for a minute, and a devnet of 8 validators and 8 miners.
soak: build
	LEDGER_TAMPER_CASES=20000 $(GO) test -race -count=3 -timeout 3h \
		-run 'Tamper|Crash|Fault|Advers|Partition|Rogue|Hostile|Devnet|Equivocation' $(PKGS)
	FUZZTIME=60s FUZZMINIMIZE=1000x scripts/fuzz.sh
	rm -rf .soak && $(BIN) devnet --dir .soak --validators 8 --miners 8 --duration 5m

bench:
	$(GO) run ./internal/benchreport -o bench.json

# A whole network on loopback: local chain, 4 validator nodes, 4 reference
# miners; ends with a summary and the commands that audit each store.
DEMO_DIR ?= .demo
demo: build
	rm -rf $(DEMO_DIR)
	$(BIN) devnet --dir $(DEMO_DIR)

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

# Rewrites spec/vectors from the code. Only after a deliberate version bump.
vectors:
	LEDGER_UPDATE_VECTORS=1 $(GO) test -count=1 -run 'Vectors' $(PKGS)

clean:
	rm -rf bin
