# Turnstile build targets. `make test` is what CI runs (.ci/run).
GO        ?= go
FUZZTIME  ?= 30s
SMOKETIME ?= 3s
# FUZZMINIMIZETIME bounds how long the fuzzer minimizes one input. Go
# minimizes every input that reaches new code, by default for 60 s; a
# FuzzWorld input reaches new code nearly every time and each candidate is
# a whole world run, so the default spends a 60 s run minimizing its first
# find (fuzz/doc.go).
FUZZMINIMIZETIME ?= 5s
BENCHTIME ?= 1s
SEEDS     ?= 1000

FUZZ_PKG := ./fuzz

.PHONY: test check fmt vet race fuzz fuzz-smoke bench crash check-runtime-contract codex conform

test: codex
	$(GO) test -count=1 -timeout 30m ./...
	$(MAKE) --no-print-directory fuzz-smoke
	$(MAKE) --no-print-directory mutants-smoke

# codex fetches the pinned Codex binary the adapters/codex tests run
# (npm pack, SHA-256 checked, cached under ~/.cache/turnstile/codex).
codex:
	@scripts/fetch-codex.sh >/dev/null

# check: formatting, vet, the race detector where goroutines exist, and
# the Core–Runtime contract.
check: fmt vet race check-runtime-contract

# check-runtime-contract: the shared wire validators, Core's and the
# Runtime's protocol machines and their shells (gateway and server,
# transport and runner), every wire scenario on all three runners under
# scenarios/ (machine, coreside, runtimeside), and the adapter kits on
# every adapter under adapters/: the shared text lifecycle, unsupported
# extensions, declaration completeness and the run against a simulated
# Core (adapters/contracttest, adapters/adaptertest; the guide
# adapters/README.md is followed by adapters/example's TestGuide). It needs no
# model credentials and no sandbox. Scenario transcripts are compared,
# never rewritten (`go test ./scenarios/machine -rewrite` does that).
CONTRACT_PKGS = ./wire ./core ./daemon ./scenarios/... ./adapters/... \
	./core/gateway/... ./core/server ./daemon/transport/... ./daemon/runner

check-runtime-contract: codex
	$(GO) test -count=1 $(CONTRACT_PKGS)

# conform plays every scenario through `turnstile conform` against
# Turnstile's own binaries: real `turnstile daemon` processes (one per
# scenario, and one kept running for -listen), a real `turnstile core`
# over a SQLite file, and the guide's commands in scenarios/README.md.
conform:
	$(GO) test -count=1 -run '^(TestConform|TestReadmeConformGuide)' ./cmd/turnstile

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needs to run on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# Only shells, real adapters and the kernel's shell clock start goroutines;
# machines are single-threaded by construction (sim/tidy_test.go enforces it).
# sim/world runs whole worlds concurrently to prove runs share no state;
# only that test (RACE_WORLD) runs under the race detector there: the
# package's campaigns are single-threaded and take most of ten minutes
# without it.
RACE_PKGS ?= ./adapters/... ./cmd/... ./core/server ./core/gateway/... ./core/api ./core/store/sqlitestore ./daemon/transport/... ./daemon/runner ./scenarios/coreside ./scenarios/runtimeside ./scenarios/conform ./scenarios/controlled ./sim
RACE_WORLD ?= ^TestConcurrentSweepMatchesSequential$$

race: codex
	$(GO) test -count=1 -timeout 30m -race $(RACE_PKGS)
	$(GO) test -count=1 -timeout 30m -race -run '$(RACE_WORLD)' ./sim/world

# fuzz-smoke runs every fuzz target briefly; fuzz runs each for FUZZTIME.
fuzz-smoke:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=$(SMOKETIME)

# The target list is computed first so a failing `go test -list` (or an
# empty list) fails the target instead of fuzzing nothing.
fuzz:
	@set -e; list=$$($(GO) test -list '^Fuzz' $(FUZZ_PKG)); \
	targets=$$(printf '%s\n' "$$list" | grep '^Fuzz' || true); \
	if [ -z "$$targets" ]; then echo "no fuzz targets found in $(FUZZ_PKG)"; exit 1; fi; \
	for t in $$targets; do \
		echo "fuzz $$t ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME) $(FUZZ_PKG); \
	done

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

# sim is the main job: a campaign of SEEDS seeds of the full-stack world
# under swarm faults, from a fresh random first seed (FIRST=F fixes the
# range; DURATION=10m runs seeds until the budget is spent instead). It
# prints a summary and exits non-zero on any violation or missed expected
# mark; failing seeds get report folders under out/sim/seed-S/. The binary
# is built first so that reports record the commit it was built from.
FIRST    ?=
DURATION ?=
.PHONY: sim build
sim: build
	bin/turnstile sim -seeds $(SEEDS) -out out/sim $(if $(FIRST),-first $(FIRST)) $(if $(DURATION),-duration $(DURATION))

build:
	$(GO) build -buildvcs=auto -o bin/turnstile ./cmd/turnstile

# crash SIGKILLs a real `turnstile core` child at CRASH_KILLS seeded points
# (make test runs 20) and checks recovery after every restart, once driving
# Turns and once quiescing and resuming Environments.
CRASH_KILLS ?= 200
CRASH_SEED  ?= 1
crash:
	$(GO) test -count=1 -run '^TestCoreCrash(Recovery|Fencing)$$' ./cmd/turnstile -crash-kills $(CRASH_KILLS) -fence-kills $(CRASH_KILLS) -crash-seed $(CRASH_SEED) -v

# mutants measures the campaign with the mutation suite of
# sim/testdata/mutants: each mutant is applied to a scratch copy of the
# tracked tree, whose campaign runs MUTANT_SEEDS seeds; the table (also in
# out/mutants/mutants.md and .json) says which a checker caught.
# MUTANTS is a regular expression selecting mutants by name; MUTANT_JOBS
# mutants run at a time.
MUTANT_SEEDS ?= 2000
MUTANT_JOBS  ?= 1
MUTANTS      ?=
# MUTANT_FLAGS are further cmd/mutants flags; by default each campaign
# stops at its first failing seed (-until-caught), so a caught mutant costs
# only the seeds up to it.
MUTANT_FLAGS ?= -until-caught
# mutants-smoke runs one mutant with few seeds and fails unless a checker
# catches it (CI runs it from `make test`).
MUTANT_SMOKE       ?= -strict-resume-false$$
MUTANT_SMOKE_SEEDS ?= 50

.PHONY: mutants mutants-smoke
mutants:
	$(GO) run ./cmd/mutants -seeds $(MUTANT_SEEDS) -jobs $(MUTANT_JOBS) -run '$(MUTANTS)' $(MUTANT_FLAGS) -out out/mutants

mutants-smoke:
	$(GO) run ./cmd/mutants -seeds $(MUTANT_SMOKE_SEEDS) -run '$(MUTANT_SMOKE)' -unit=false -want-caught -out out/mutants-smoke
