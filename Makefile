SHELL := /bin/bash
# sf: deterministic simulation testing for Go services.
#
#   make demo    build the tools and find the bug planted in examples/kvlog;
#                its last sweep (about a minute) sets SF_PROGRESS=5s, so a
#                stderr that is not a terminal gets a progress line every 5s
#   make test    the whole test suite (what CI runs), after make lint; its
#                guests are built and compiled into ~/.cache/sf/test-cache,
#                which make clean-cache removes
#   make lint    gofmt, go vet and staticcheck, all clean
#   make bench   how kvlog's CPU splits between the guests and sf's own code
#                (tools/engine-share.sh, with perf), for every example world
#                seeds/s at -j 1 and -j 2, virtual/real time, µs per step,
#                CPU per seed and sf's share of it (tools/world-bench.sh,
#                BENCH_SEEDS seeds each), speed figures for the engine, as
#                ratios and rates, the disk's host memory per byte it holds
#                (BenchmarkDiskMemory), Go as wasm against native
#                (BenchmarkGuestSpeed), how long forking and resuming a
#                world takes (BenchmarkFork), and seeds/s with and without
#                "fork": "setup" (BenchmarkSetupFork)
#   make campaign  the long sweeps of the library campaign (docs/findings.md):
#                every fault mix of the campaign's examples (the logs, the
#                key-value stores, NATS's cluster, raftkv), at -j 1,
#                CAMPAIGN_SEEDS seeds each (hours; kept out of make test)
#   make fork-check  fork the example worlds of TestForkResume at every
#                scheduler step and resume each fork (tens of minutes)
#   make fork-worlds  fork every world under examples/ at a spread of steps
#                and resume each fork (TestForkEveryWorld, about 7 minutes;
#                test-long runs it too)
GO    ?= go
BIN   := bin
TOOLS := $(notdir $(wildcard cmd/sf-*))

.PHONY: all build deps test race test-long demo bench vet lint clean clean-cache corpus corpus-update fork-check fork-worlds campaign

all: build

build:
	@mkdir -p $(BIN)
	@# One go build of every tool: their links run side by side, and a tool
	@# already up to date in $(BIN) is not linked again.
	@$(GO) build -o $(BIN)/ $(foreach t,$(TOOLS),$(if $(wildcard cmd/$(t)/*.go),./cmd/$(t)))
	@echo "built $(BIN)/: $$(ls $(BIN) | tr '\n' ' ')"

vet:
	$(GO) vet ./... ./sim/... ./examples/...

# deps installs what the tests need beyond Go: Chromium, for the browser test of
# sf-report's HTML page. Quick when it is there; apt-get (Debian, Ubuntu) otherwise.
deps:
	@if command -v chromium >/dev/null || command -v chromium-browser >/dev/null || command -v google-chrome >/dev/null || [ -n "$$CHROME" ]; then :; \
	elif command -v apt-get >/dev/null; then \
	  echo "deps: installing chromium with apt-get"; \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null || exit 1; \
	else echo "deps: no Chromium and no apt-get: install Chromium or set CHROME for sf-report's browser test"; fi

# staticcheck is pinned in tools/go.mod, a module of its own so that its
# dependencies stay out of sf's go.mod (RATIONALE.md says why); it is built
# into bin/ from there, with no global install.
STATICCHECK := $(BIN)/staticcheck

$(STATICCHECK): tools/go.mod tools/go.sum
	@mkdir -p $(BIN)
	GOWORK=off $(GO) build -C tools -o $(CURDIR)/$(STATICCHECK) honnef.co/go/tools/cmd/staticcheck

lint: vet $(STATICCHECK)
	@out=$$(find . -name '*.go' -not -path '*/.seedfall/*' -not -path './tmp/*' -print0 | xargs -0 gofmt -l); if [ -n "$$out" ]; then echo "gofmt -l: not formatted:"; echo "$$out"; exit 1; fi
	$(STATICCHECK) ./... ./sim/... ./examples/...

# -short keeps the long sweeps out; test-long runs them. TEST_TIMEOUT bounds
# each package's test binary: go test's own default of 10 minutes is too
# little for cmd/sf-run on a 2-core machine that other work shares.
TEST_TIMEOUT ?= 45m
# The race detector runs over lib/ but for the packages whose code starts no
# goroutine and shares nothing between them (no go statement, sync, atomic or
# channel): their tests run on one goroutine, and the engine's tests already
# run their code instrumented where goroutines meet (RATIONALE.md: "Why
# race-test lib/ but its one-goroutine packages?"). A new package is raced
# until it is added here.
RACE_SKIP := atomicfile|check/jsonvalue|cmdspec|commands|compressed|config|determinism|disk|engine/netoverlay|faults|faultsedit|history/jsontext|margin|pin|report|rng|schedule|snapfile|textfmt|wasmrewrite|wire
RACE = $(GO) test -race -short -count=1 $(TEST_VET) -timeout $(TEST_TIMEOUT) $$($(GO) list ./lib/... | grep -vxE 'github.com/sf-dst/sf/lib/($(RACE_SKIP))')

# Every package's tests build and compile their guests into one cache
# (SF_CACHE_DIR, docs/sf-run.md), so that a guest is built and compiled once
# and not once per package, per test folder and again under the race
# detector, whose instrumented compiler is many times slower. The race run
# comes last for that reason: it finds the guests compiled. The cache lives
# in the user's cache folder, beside Go's build cache, and like it is kept
# between runs and between checkouts, a clean clone's included: its entries
# are found by content (docs/sf-build.md), so another checkout's are either
# the same program or never asked for. Its folder is named after the wazero
# of go.mod because the test binaries, unlike the tools, cannot tell
# wazero's version and file their machine code under "dev". Without a cache
# folder (no HOME) it is .seedfall/test-cache. Entries nothing read for a
# week are dropped first; make clean-cache drops them all.
USER_CACHE := $(or $(XDG_CACHE_HOME),$(if $(HOME),$(HOME)/.cache))
WAZERO_VERSION := $(shell sed -n 's|^[[:space:]]*github.com/tetratelabs/wazero \(v[^[:space:]]*\).*|\1|p' go.mod)
TEST_CACHE_ROOT := $(if $(USER_CACHE),$(USER_CACHE)/sf/test-cache,$(CURDIR)/.seedfall/test-cache)
TEST_CACHE := $(TEST_CACHE_ROOT)/wazero-$(WAZERO_VERSION)
PRUNE_TEST_CACHE := find $(TEST_CACHE_ROOT) -type f -atime +7 -delete 2>/dev/null || true
test race test-long corpus corpus-update: export SF_CACHE_DIR ?= $(TEST_CACHE)

# lint has run go vet with every analyzer over the same packages, so the
# tests leave out the few that go test runs by default.
test: TEST_VET := -vet=off
test: deps build lint
	@$(PRUNE_TEST_CACHE)
	$(GO) test -short -count=1 $(TEST_VET) -timeout $(TEST_TIMEOUT) ./... ./sim/... ./examples/...
	$(RACE)

# The race detector over lib/, nearly all of it lib/engine (RATIONALE.md:
# "Why race-test lib/ but its one-goroutine packages?").
race:
	@$(PRUNE_TEST_CACHE)
	$(RACE)

test-long: deps build
	$(GO) test -count=1 -timeout 60m ./... ./sim/... ./examples/...

demo: build
	@echo '$$ bin/sf-run -c examples/kvlog/seedfall.json -seeds 1-100    # find the planted bug: acks before fsync'
	@bin/sf-run -c examples/kvlog/seedfall.json -seeds 1-100; \
	  status=$$?; [ "$$status" = 1 ] || { echo "expected the buggy world to fail (exit 1), got $$status"; exit 1; }
	@echo
	@echo '$$ bin/sf-shrink -c examples/kvlog/seedfall.json -seed 1    # cut seed 1 down to the faults that matter'
	@bin/sf-shrink -c examples/kvlog/seedfall.json -seed 1 2>&1 | grep -v '^built'; \
	  status=$${PIPESTATUS[0]}; [ "$$status" = 1 ] || { echo "expected sf-shrink to shrink a failure (exit 1), got $$status"; exit 1; }
	@echo '$$ bin/sf-run -c examples/kvlog/seedfall.json -seed 1 -faults examples/kvlog/.seedfall/seedfall/seed-1.shrunk.faults.json    # replay it'
	@bin/sf-run -c examples/kvlog/seedfall.json -seed 1 -faults examples/kvlog/.seedfall/seedfall/seed-1.shrunk.faults.json; \
	  status=$$?; [ "$$status" = 1 ] || { echo "expected the shrunk schedule to fail (exit 1), got $$status"; exit 1; }
	@echo
	@echo '# The fixed world has a pinned regression: a failing schedule kept in .seedfall/pinned/ (sf-run -pin,'
	@echo '# sf-shrink -pin) and committed with the code, which every sweep replays before its seeds.'
	@echo '$$ SF_PROGRESS=5s bin/sf-run -c examples/kvlog/seedfall.fixed.json -seeds 1-200    # the fix: fsync before ack'
	@SF_PROGRESS=5s bin/sf-run -c examples/kvlog/seedfall.fixed.json -seeds 1-200

BENCH_SEEDS ?= 10
bench: build
	@tools/engine-share.sh bin/sf-run
	@tools/world-bench.sh bin/sf-run $(BENCH_SEEDS)
	$(GO) test -run '^$$' -bench . -benchtime 1x -count 1 -timeout 60m ./lib/sweep ./lib/disk ./lib/engine ./lib/engine/core ./lib/history ./lib/check ./lib/shrink ./lib/explore ./lib/mutate ./lib/wasmrewrite ./lib/runner

# The determinism corpus (lib/determinism): every example world's first 20
# seeds and a few whole traces, as sf-run runs them. make test compares a
# quick part; corpus compares all of it; corpus-update records it anew, in a
# commit of its own that says why the runs changed.
corpus:
	$(GO) test -count=1 -timeout 60m -run '^TestCorpus$$' ./lib/determinism -full

corpus-update:
	$(GO) test -count=1 -timeout 60m -run '^TestCorpus$$' ./lib/determinism -update

# campaign runs tools/campaign.sh: one sweep per library and fault mix, each
# replaying its world's pinned findings first, so it fails while a library
# keeps a bug that docs/findings.md lists.
CAMPAIGN_SEEDS ?= 1-1000
campaign: build
	@tools/campaign.sh bin/sf-run $(CAMPAIGN_SEEDS)

# fork-check forks every step of TestForkResume's seeds, where make test forks
# a spread of them.
fork-check:
	$(GO) test -count=1 -timeout 180m -run '^TestForkResume$$' ./lib/engine/core -fork-all

# fork-worlds forks seed 1 of every example world (examples/*/seedfall*.json)
# at a spread of its steps, where make test forks TestForkResume's few.
fork-worlds: export SF_CACHE_DIR ?= $(TEST_CACHE)
fork-worlds:
	$(GO) test -count=1 -timeout 60m -run '^TestForkEveryWorld$$' ./lib/engine/core -fork-worlds

# clean keeps .seedfall/pinned/: pinned regressions are committed with the code.
clean:
	rm -rf $(BIN)
	@for d in .seedfall examples/*/.seedfall; do [ -d "$$d" ] && find "$$d" -mindepth 1 -maxdepth 1 ! -name pinned -exec rm -rf {} +; done; true

# clean-cache removes make test's guest cache (TEST_CACHE_ROOT above).
clean-cache:
	rm -rf $(TEST_CACHE_ROOT)
