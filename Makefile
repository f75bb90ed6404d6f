# Turnstile build targets. The test loops, fastest first:
#   make quick            go test -short ./...: the inner loop, about a
#                         minute on two cores with a warm build cache
#   make test             every test but the campaign-scale ones, a fuzz
#                         smoke and a mutant smoke (what CI runs first)
#   make campaign-checks  the campaign-scale tests (CI runs them after
#                         `make test`), one `go test -v -run` per piece
# A test skipped by one loop says which target runs it
# (internal/testgate).
GO        ?= go
FUZZTIME  ?= 30s
SMOKETIME ?= 5000x
SMOKETIME_WORLD ?= 50x
# FUZZMINIMIZETIME bounds how long the fuzzer minimizes one input. Go
# minimizes every input that reaches new code, by default for 60 s; a
# FuzzWorld input reaches new code nearly every time and each candidate is
# a whole world run, so the default spends a 60 s run minimizing its first
# find (fuzz/doc.go).
FUZZMINIMIZETIME ?= 5s
BENCHTIME ?= 1s
SEEDS     ?= 1000

FUZZ_PKG := ./fuzz

.PHONY: pg pg-stop quick test campaign-checks check fmt vet race fuzz fuzz-smoke bench crash check-runtime-contract codex claude acp openai-sdk conform

# quick skips the tests marked testgate.Long (real processes, compiled
# test binaries, hundreds of seeds) and testgate.Campaign.
quick:
	$(GO) test -short ./...

# test and race run the PostgreSQL store's tests against TURNSTILE_PG_DSN,
# or, when that is unset, against the cluster `make pg` started if it
# runs; with neither they skip (outside CI; under CI they fail).
PG_ENV = TURNSTILE_PG_DSN="$${TURNSTILE_PG_DSN:-$$(scripts/pg-cluster.sh status 2>/dev/null)}"

# TEST_PARALLEL is how many parallel tests of one package run at once.
# The tests that call t.Parallel wait on real processes and timers (the
# conform runs, the SIGKILL campaigns, the README's two-Core block) and
# use little CPU, so more of them than cores overlap their waits.
TEST_PARALLEL ?= 4

test: codex claude acp openai-sdk
	$(PG_ENV) $(GO) test -count=1 -timeout 30m -parallel $(TEST_PARALLEL) ./...
	$(MAKE) --no-print-directory fuzz-smoke
	$(MAKE) --no-print-directory mutants-smoke

# pg starts a throwaway PostgreSQL cluster in out/pg (Unix socket only,
# as the postgres user when run by root) and prints its DSN; pg-stop
# stops it. See scripts/pg-cluster.sh.
pg:
	@scripts/pg-cluster.sh start

pg-stop:
	@scripts/pg-cluster.sh stop

# campaign-checks runs the tests marked testgate.Campaign (thousands of
# full-stack seeds), opted into with TURNSTILE_CAMPAIGN=1. Each piece is
# one `go test -v -run` invocation, and the tests log their progress every
# 50 seeds, so no piece is silent for long. `make campaign-PIECE` runs
# one piece; internal/testgate's TestCampaignTestsHaveAPiece keeps every
# campaign-scale test in one.
CAMPAIGN_TIMEOUT ?= 60m
# campaign runs the tests $(2) (a -run alternation) of package $(1).
campaign = TURNSTILE_CAMPAIGN=1 $(GO) test -count=1 -v -timeout $(CAMPAIGN_TIMEOUT) -run '^($(2))$$' $(1)

CAMPAIGN_PIECES := campaign-world-marks campaign-world-mark-needs
.PHONY: $(CAMPAIGN_PIECES)

campaign-checks: $(CAMPAIGN_PIECES) campaign-world-planted campaign-world-planted-interaction

# every expected rare-state mark is hit in seeds 1..1000
campaign-world-marks:
	$(call campaign,./sim/world,TestMarksHitIn1000Seeds)

# each fault kind reaches the marks it is said to lead to (within 200 seeds a kind)
campaign-world-mark-needs:
	$(call campaign,./sim/world,TestMarkNeedsAreReached)

# codex fetches the pinned Codex binary the adapters/codex tests run
# (npm pack, SHA-256 checked, cached under ~/.cache/turnstile/codex).
codex:
	@scripts/fetch-codex.sh >/dev/null

# claude fetches the pinned Claude Code CLI the adapters/claude tests run
# (npm pack, SHA-256 checked, cached under ~/.cache/turnstile/claude).
claude:
	@scripts/fetch-claude.sh >/dev/null

# acp fetches the pinned ACP agent @agentclientprotocol/claude-agent-acp
# and the packages it loads, the adapters/acp tests run (npm pack, every
# tarball SHA-256 checked, cached and installed offline under
# ~/.cache/turnstile/acp); it drives the binary `make claude` fetches.
acp: claude
	@scripts/fetch-acp.sh >/dev/null

# openai-sdk fetches the pinned official OpenAI Node SDK the Agents API
# acceptance scripts import (npm pack, SHA-256 checked, unpacked under
# ~/.cache/turnstile/openai/VERSION/node_modules).
openai-sdk:
	@scripts/fetch-openai-sdk.sh >/dev/null

# check: formatting, vet, the race detector where goroutines exist, and
# the Core–Runtime contract.
check: fmt vet race check-runtime-contract

# check-runtime-contract: the shared wire validators, Core's and the
# Runtime's protocol machines and their shells (gateway and server,
# transport and runner), every wire scenario on all three runners under
# scenarios/ (machine, and conform's in-process shells), and the adapter kits on
# every adapter under adapters/: the shared text lifecycle, unsupported
# extensions, declaration completeness and the run against a simulated
# Core (adapters/contracttest, adapters/adaptertest; the guide
# adapters/README.md is followed by adapters/example's TestGuide), and the
# public onboarding of a test-local Harness through real Core and daemon
# shells (cmd/turnstile TestThirdHarnessPublicOnboarding). It needs no
# model credentials and no sandbox. Scenario transcripts are compared,
# never rewritten (`go test ./scenarios/machine -rewrite` does that).
CONTRACT_PKGS = ./wire ./core ./daemon ./scenarios/... ./adapters/... \
	./core/gateway/... ./core/server ./daemon/transport/... ./daemon/runner

check-runtime-contract: codex claude acp
	$(GO) test -count=1 $(CONTRACT_PKGS)
	$(GO) test -count=1 ./cmd/turnstile -run '^TestThirdHarnessPublicOnboarding$$'

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
# package's other worlds are single-threaded, and its sweeps of hundreds
# of seeds would take many minutes under the detector.
RACE_PKGS ?= ./adapters/... ./cmd/... ./core/server ./core/gateway/... ./core/api ./core/store/sqlitestore ./core/store/pgstore ./daemon/transport/... ./daemon/runner ./scenarios/conform ./scenarios/controlled ./sim
RACE_WORLD ?= ^TestConcurrentSweepMatchesSequential$$

race: codex claude acp openai-sdk
	$(PG_ENV) $(GO) test -count=1 -timeout 30m -race $(RACE_PKGS)
	$(GO) test -count=1 -timeout 30m -race -run '$(RACE_WORLD)' ./sim/world

# fuzz-smoke runs every fuzz target for SMOKETIME executions, FuzzWorld (a
# whole world per input) for SMOKETIME_WORLD (a count has no wall-clock
# deadline); fuzz runs each for FUZZTIME.
fuzz-smoke:
	@FUZZTIME_FuzzWorld=$(SMOKETIME_WORLD) $(MAKE) --no-print-directory fuzz FUZZTIME=$(SMOKETIME)

# scripts/fuzz.sh lists the targets first (an empty list fails) and tells
# Go's own -fuzztime deadline race (golang/go#75804) from a failing input.
fuzz:
	@scripts/fuzz.sh $(FUZZ_PKG) $(FUZZTIME) $(FUZZMINIMIZETIME)

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

# cross builds cmd/turnstile for every platform the daemon supports (64-
# and 32-bit) and vets the packages whose code differs by platform. The
# determinism check across architectures needs these builds.
CROSS_TARGETS ?= linux/amd64 linux/arm64 linux/386 linux/arm darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
.PHONY: cross
cross:
	@for t in $(CROSS_TARGETS); do \
		echo "build $$t"; \
		GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) build -o /dev/null ./cmd/turnstile || exit 1; \
		GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) vet ./internal/clirunner || exit 1; \
	done

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
# mutants-smoke runs one mutant with few seeds, stops at its first failing
# seed, and fails unless a checker catches it (CI runs it from `make test`).
MUTANT_SMOKE       ?= -strict-resume-false$$
MUTANT_SMOKE_SEEDS ?= 50

# campaign-world-planted plants protocol bugs every campaign must catch,
# as mutants (MUTANTS_PLANTED: done overriding a cancel receipt, accepted
# before the native apply, capacity freed on a failed close, a forgotten
# admission expiry, a redelivered unknown input, a fenced Core's commit
# made durable, a refused commit's effects sent), and fails unless a
# checker catches each within MUTANT_SEEDS seeds;
# campaign-world-planted-interaction does the same for the interaction
# bugs (MUTANTS_PLANTED_INTERACTION: a decision resolved without its
# receipt, applied before the native apply, a repeat applied twice).
MUTANTS_PLANTED             ?= ^(145|147|148|149|152|153|154)-
MUTANTS_PLANTED_INTERACTION ?= ^(146|150|151)-

.PHONY: mutants mutants-smoke campaign-world-planted campaign-world-planted-interaction
mutants:
	$(GO) run ./cmd/mutants -seeds $(MUTANT_SEEDS) -jobs $(MUTANT_JOBS) -run '$(MUTANTS)' $(MUTANT_FLAGS) -out out/mutants

campaign-world-planted:
	$(GO) run ./cmd/mutants -seeds $(MUTANT_SEEDS) -run '$(MUTANTS_PLANTED)' -unit=false -until-caught -want-caught -out out/mutants-planted

campaign-world-planted-interaction:
	$(GO) run ./cmd/mutants -seeds $(MUTANT_SEEDS) -run '$(MUTANTS_PLANTED_INTERACTION)' -unit=false -until-caught -want-caught -out out/mutants-planted-interaction

mutants-smoke:
	$(GO) run ./cmd/mutants -seeds $(MUTANT_SMOKE_SEEDS) -run '$(MUTANT_SMOKE)' -unit=false -until-caught -want-caught -out out/mutants-smoke
