# Two commands on a fresh machine: `make demo` and `make test`.
GO       ?= go
BIN      := bin/ledger
FUZZTIME ?= 3s
PKGS     := ./...

.PHONY: build test unit interop fuzz fuzz-long bench demo lint vectors clean

build:
	$(GO) build -o $(BIN) ./cmd/ledger

# The test command CI runs: every package under the race detector, then a
# short run of every fuzz target.
test: interop unit fuzz

unit:
	$(GO) test -race -count=1 -timeout 30m $(PKGS)

# Checks spec/vectors against independent JavaScript implementations (npm).
interop:
	@if command -v node >/dev/null && command -v npm >/dev/null; then \
		cd spec/interop && npm ci --no-audit --no-fund --loglevel=error && node encoding.mjs && node ledger.mjs; \
	else echo "interop: node/npm not found, skipped"; fi

fuzz:
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

fuzz-long:
	FUZZTIME=60s scripts/fuzz.sh

bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s $(PKGS)

demo: build
	$(BIN) demo

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

# Rewrites spec/vectors from the code. Only after a deliberate version bump.
vectors:
	LEDGER_UPDATE_VECTORS=1 $(GO) test -count=1 -run 'Vectors' $(PKGS)

clean:
	rm -rf bin
