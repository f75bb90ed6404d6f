package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/sim/campaign"
)

const usageSim = `usage: turnstile sim [-seeds N] [-first F | -seed S] [-duration D] [-until-fail]
                     [-shard i/n] [-faults K] [-devices D] [-turns T] [-out DIR] [-json]
                     [-workers W] [-strict]

Runs one seed or a campaign of seeds of the full-stack world and prints a
summary: seeds, events per second, virtual against wall time, faults
injected by kind, rare-state marks hit (a campaign of 1000 seeds or more
fails when an expected mark was never hit), violations and the
linearizability verdicts. The swarm over every fault kind judges every
expected mark; a campaign restricted with -faults judges only the marks its
kinds lead to. Every failing seed and every 50th seed is run twice to audit
determinism. With -out, every failing seed gets a report folder
DIR/seed-S/ with its replay command (DIR/seed-S.2/, .3, ... when an earlier
campaign left one of that name: earlier reports are never removed or
overwritten). After the summary of a failing campaign come the next steps
for its first failing seed: the exact replay and shrink commands and how to
keep the case in sim/testdata/regressions. A seed whose linearizability
check timed out (unknown) is listed; it fails the campaign only with -strict.

Without -first the campaign starts at a fresh random seed, printed in the
banner (SEEDS=F..L) and in the JSON header, so every run explores new
seeds; -first F runs the fixed range F..F+N-1. A sharded campaign needs
-first: every shard must run the same range. -duration D runs the seeds of
the range in order until D of wall time is spent (the range is then only an
upper bound, unbounded unless -seeds is given); -until-fail stops at the
first failing seed and prints its report folder (DIR defaults to out/sim).

With -json, stdout carries one JSON line per seed (after a header line) for
'turnstile campaign merge'; the banner, progress and summary go to stderr.
Exits 0 when every seed passed, 1 when any seed failed (a panic in a run is
reported as the seed's failure, check "panic"), an expected mark was
missed, or, with -strict, a linearizability check was unknown; 2 on a usage
error; 3 when a report or summary cannot be written (checked before the
first seed runs).

` + exitCodes

// simFlags are the parsed flags of the sim command.
type simFlags struct {
	plan    campaign.Plan
	config  campaign.Config
	out     string
	json    bool
	workers int
	commit  string
	strict  bool
	// budget is the wall time a time-budgeted campaign may spend (0: none).
	budget    time.Duration
	untilFail bool
	fresh     bool // plan.First was drawn at random
}

// budgetSeedsMax is the seed count of a time-budgeted campaign without
// -seeds: far more than any budget reaches (years at tens of milliseconds
// a seed), and an int on 32-bit platforms too.
const budgetSeedsMax = math.MaxInt32

func (sh *shell) parseSim(args []string) (simFlags, int, bool) {
	fs := sh.newFlags("sim", usageSim)
	seeds := fs.Int("seeds", 1000, "seeds in the whole campaign")
	first := fs.Uint64("first", 1, "first seed of the campaign")
	seed := fs.Uint64("seed", 0, "run this one seed only")
	shard := fs.String("shard", "0/1", "run shard i of n: the seeds whose index in the campaign is i mod n")
	out := fs.String("out", "", "write a report folder per failing seed under this directory")
	jsonOut := fs.Bool("json", false, "write one JSON line per seed to stdout")
	workers := fs.Int("workers", 0, "seeds run in parallel; 0 for GOMAXPROCS")
	commit := fs.String("commit", "", "commit recorded in reports (default: git rev-parse HEAD)")
	strict := fs.Bool("strict", false, "fail the campaign when a seed's linearizability check is unknown (timed out)")
	budget := fs.Duration("duration", 0, "run seeds until this much wall time is spent (e.g. 10m)")
	untilFail := fs.Bool("until-fail", false, "stop at the first failing seed and print its report folder")
	config := sh.configFlags(fs)
	if code, ok := sh.parse(fs, args); !ok {
		return simFlags{}, code, false
	}
	fail := func(err error) (simFlags, int, bool) { return simFlags{}, sh.usageError("sim", err), false }
	if fs.NArg() > 0 {
		return fail(fmt.Errorf("%w: %v", ErrArgs, fs.Args()))
	}
	f := simFlags{out: *out, json: *jsonOut, workers: *workers, commit: *commit, strict: *strict,
		budget: *budget, untilFail: *untilFail}
	sh2, err := campaign.ParseShard(*shard)
	if err != nil {
		return fail(err)
	}
	if f.budget < 0 {
		return fail(fmt.Errorf("%w: %s", ErrDuration, f.budget))
	}
	count := *seeds
	if f.budget > 0 && !flagSet(fs, "seeds") {
		count = budgetSeedsMax
	}
	f.plan = campaign.Plan{First: *first, Count: count, Shard: sh2}
	switch {
	case flagSet(fs, "seed"):
		if flagSet(fs, "seeds") || flagSet(fs, "first") || flagSet(fs, "shard") || f.budget > 0 {
			return fail(ErrSeedAndSeeds)
		}
		f.plan = campaign.Plan{First: *seed, Count: 1, Shard: sh2}
	case !flagSet(fs, "first") && sh2.Count > 1:
		return fail(ErrShardNeedsFirst)
	case !flagSet(fs, "first"):
		f.plan.First, f.fresh = sh.fresh(), true
	}
	if f.untilFail && f.out == "" {
		f.out = untilFailOut
	}
	if err := f.plan.Validate(); err != nil {
		return fail(err)
	}
	if f.workers < 0 {
		return fail(fmt.Errorf("%w: %d", ErrWorkers, f.workers))
	}
	if f.workers == 0 {
		f.workers = sh.workers
	}
	if f.config, err = config(); err != nil {
		return fail(err)
	}
	if f.commit == "" {
		f.commit = sh.commit()
	}
	return f, exitOK, true
}

func (sh *shell) cmdSim(args []string) int {
	f, code, ok := sh.parseSim(args)
	if !ok {
		return code
	}
	info := sh.stdout // banner, failures and summary
	if f.json {
		info = sh.stderr
		hdr := campaign.NewHeader(f.plan, f.config, f.commit)
		hdr.Fresh = f.fresh
		if f.budget > 0 {
			hdr.Budget = f.budget.String()
		}
		fmt.Fprintf(sh.stdout, "%s\n", campaign.MarshalLine(hdr))
	}
	seeds := f.plan.Len()
	sh.banner(info, f, seeds)
	if seeds == 0 {
		fmt.Fprintf(info, "turnstile sim: shard %s has no seeds (the campaign has %d)\n", f.plan.Shard, f.plan.Count)
		return exitOK
	}
	if f.out != "" {
		if err := prepareOut(f.out); err != nil {
			fmt.Fprintf(sh.stderr, "turnstile sim: %v\n", err)
			return exitTool
		}
	}
	start := sh.now()
	runner := sh.newRunner(f.config)
	prog := newProgress(sh.stderr, sh.tty, seeds, sh.now)
	prog.budget = f.budget
	summary := campaign.NewSummary()
	summary.MarkNeeds = sh.markNeeds
	summary.Config = f.config
	summary.Strict = f.strict
	var writeErr error
	failed := false
	var first *seedResult // the first failing seed, for the next steps
	stop := func() bool {
		return (f.untilFail && failed) || (f.budget > 0 && sh.now().Sub(start) >= f.budget)
	}
	ran := sh.pool(runner, f, stop, func(r seedResult) {
		summary.Add(r.run.Report)
		if f.json {
			fmt.Fprintf(sh.stdout, "%s\n", campaign.MarshalLine(r.run.Report))
		}
		if r.run.Failed() {
			prog.clear()
			if err := sh.reportFailure(info, r, f); err != nil && writeErr == nil {
				writeErr = err
			}
			if first == nil {
				first = &r
			}
			failed = true
		}
		prog.add(r.run.Failed())
	})
	prog.finish()
	summary.Elapsed = sh.now().Sub(start)
	if ran < seeds {
		fmt.Fprintf(info, "stopped after %d seeds (%s): ran %s\n", ran, stopReason(f, failed),
			campaign.Ranges(ranSeeds(f.plan, ran)))
	}
	summary.Write(info)
	if first != nil {
		nextSteps(info, *first, f)
	}
	if f.out != "" {
		if err := writeSummary(f.out, summary, sh.commandLine, f.commit); err != nil && writeErr == nil {
			writeErr = err
		}
	}
	if writeErr != nil {
		fmt.Fprintf(sh.stderr, "turnstile sim: %v\n", writeErr)
		return exitTool
	}
	if summary.Err() != nil {
		return exitFail
	}
	return exitOK
}

// banner prints the seed range and shard, the SEED= (one seed) or SEEDS=
// (a range) line and how to replay; nothing to replay for an empty shard.
func (sh *shell) banner(w io.Writer, f simFlags, seeds int) {
	plan := f.plan.String()
	if f.budget > 0 {
		plan = fmt.Sprintf("seeds from %d until %s is spent", f.plan.First, f.budget)
		if f.plan.Count != budgetSeedsMax {
			plan += fmt.Sprintf(" (at most %d)", f.plan.Count)
		}
		plan += ", shard " + f.plan.Shard.String()
	}
	if f.fresh {
		plan += " (fresh)"
	}
	fmt.Fprintf(w, "turnstile sim: %s; faults %s, devices %s, turns %s; %d workers; commit %s\n",
		plan, campaign.FaultsString(f.config.Faults), orSeed(f.config.Devices), orDefault(f.config.Turns),
		f.workers, f.commit)
	switch {
	case seeds == 0:
	case f.budget > 0:
		fmt.Fprintf(w, "SEEDS=%d.. (the seeds that ran are printed at the end)\nreplay a seed: %s replay -seed S%s\n",
			f.plan.First, campaign.Command, f.config.Flags())
	case f.plan.Count == 1:
		fmt.Fprintf(w, "SEED=%d\nreplay: %s\n", f.plan.First, campaign.ReplayCommand(f.plan.First, f.config))
	default:
		fmt.Fprintf(w, "SEEDS=%d..%d\nreplay a seed: %s replay -seed S%s\n", f.plan.First, f.plan.Last(),
			campaign.Command, f.config.Flags())
	}
}

func orSeed(n int) string {
	if n == 0 {
		return "from seed"
	}
	return fmt.Sprint(n)
}

func orDefault(n int) string {
	if n == 0 {
		return "default"
	}
	return fmt.Sprint(n)
}

// reportFailure prints a failing seed and writes its bundle.
func (sh *shell) reportFailure(w io.Writer, r seedResult, f simFlags) error {
	rep := r.run.Report
	msg := ""
	if len(rep.Violations) > 0 {
		msg = ": " + rep.Violations[0].Message
	}
	fmt.Fprintf(w, "FAIL SEED=%d %s%s\n  replay: %s\n", rep.Seed, rep.FirstCheck(), msg,
		campaign.ReplayCommand(rep.Seed, f.config))
	if rep.Audit != nil && rep.Audit.Diverged {
		fmt.Fprintf(w, "  %s\n", rep.Audit)
	}
	if rep.Shrink != "" {
		fmt.Fprintf(w, "  %s\n", rep.Shrink)
	}
	if f.out == "" {
		return nil
	}
	dir := r.dir
	if dir == "" {
		return r.dirErr
	}
	if err := writeFiles(dir, r.bundle); err != nil {
		return err
	}
	fmt.Fprintf(w, "  report: %s/\n", dir)
	return nil
}

// regressionsDir is the regression corpus, replayed by
// TestRegressionCorpus in sim/campaign.
const regressionsDir = "sim/testdata/regressions"

// nextSteps prints what to do after a failure, for the first failing seed:
// the exact replay and shrink commands and how to keep the shrunk case in
// the regression corpus.
func nextSteps(w io.Writer, r seedResult, f simFlags) {
	seed := r.run.Report.Seed
	keep := path.Join(regressionsDir, fmt.Sprintf("seed-%d.json", seed))
	shrunk := ""
	for _, file := range r.bundle {
		if file.Name == "shrunk.json" && r.dir != "" {
			shrunk = path.Join(r.dir, file.Name)
		}
	}
	fmt.Fprintf(w, "\nnext steps for the first failing seed, %d", seed)
	if r.dir != "" {
		fmt.Fprintf(w, " (report: %s/)", r.dir)
	}
	fmt.Fprintf(w, ":\n  1. replay it (same fingerprint, the trace's tail; -trace FILE writes it all):\n       %s\n",
		campaign.ReplayCommand(seed, f.config))
	if shrunk != "" {
		fmt.Fprintf(w, "       %s\n", campaign.ReplayScheduleCommand(shrunk))
	}
	fmt.Fprintf(w, "  2. shrink it (fewer faults, a smaller workload, the same check failing):\n       %s shrink -seed %d%s -o %s\n",
		campaign.Command, seed, f.config.Flags(), keep)
	save := fmt.Sprintf("%s replay -seed %d%s -save %s -note \"why\"", campaign.Command, seed, f.config.Flags(), keep)
	switch {
	case shrunk != "":
		fmt.Fprintf(w, "     (the campaign did it already: %s is the shrunk case)\n", shrunk)
	case r.run.Report.Shrink != "":
		fmt.Fprintf(w, "     (the campaign's shrink was skipped for this seed; the reason is above)\n")
	}
	fmt.Fprintf(w, "  3. keep it in the regression corpus (%s/README.md):\n", regressionsDir)
	switch {
	case shrunk != "":
		fmt.Fprintf(w, "       cp %s %s\n", shrunk, keep)
	case r.run.Report.Shrink != "":
		fmt.Fprintf(w, "       %s\n", save)
	default:
		fmt.Fprintf(w, "       (step 2 writes it there; if the seed does not shrink: %s)\n", save)
	}
	fmt.Fprintf(w, "     fix the bug until go test ./sim/campaign -run TestRegressionCorpus passes on it, then pin\n"+
		"     the fixed run's fingerprint: go test ./sim/campaign -run TestRegressionCorpus -update-regressions\n")
}

// untilFailOut is where -until-fail writes the failing seed's report
// folder when -out is not given.
const untilFailOut = "out/sim"

func stopReason(f simFlags, failed bool) string {
	if f.untilFail && failed {
		return "-until-fail: a seed failed"
	}
	return "-duration " + f.budget.String() + " spent"
}

// ranSeeds lists the first n seeds of the plan's shard.
func ranSeeds(p campaign.Plan, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = p.Nth(i)
	}
	return out
}

// prepareOut makes sure the report directory can be written before any
// seed runs. Report folders earlier campaigns left there are kept: a new
// campaign writes its own beside them (claimBundleDir).
func prepareOut(out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	probe, err := os.CreateTemp(out, ".write-check-*")
	if err != nil {
		return err
	}
	probe.Close()
	if err := os.Remove(probe.Name()); err != nil {
		return err
	}
	return nil
}

// claimBundleDir creates the report folder of a failing seed under out and
// returns it: out/seed-S, or, when an earlier campaign left one of that
// name, out/seed-S.2, out/seed-S.3 and so on. Creating the folder claims
// it (os.Mkdir fails on an existing one), so no earlier report is ever
// overwritten or removed, even by campaigns running at once.
func claimBundleDir(out string, seed uint64) (string, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	base := campaign.BundleDir(out, seed)
	for n := 1; ; n++ {
		dir := base
		if n > 1 {
			dir = fmt.Sprintf("%s.%d", base, n)
		}
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
}

func writeFiles(dir string, files []campaign.File) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeSummary writes DIR/summary.txt: the command line and commit that
// produced the campaign, then its summary.
func writeSummary(dir string, s *campaign.Summary, command []string, commit string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "summary.txt"))
	if err != nil {
		return err
	}
	fmt.Fprintf(f, "command: %s\ncommit:  %s\n\n", strings.Join(command, " "), commit)
	s.Write(f)
	return f.Close()
}

// seedResult is one seed's run and, when it failed and a report folder was
// asked for, the folder claimed for it (or why none could be) and its files.
type seedResult struct {
	index  int
	run    campaign.SeedRun
	bundle []campaign.File
	dir    string
	dirErr error
}

// pool runs the plan's seeds in order on f.workers goroutines and calls
// emit with each result in seed order, from the calling goroutine. Before
// handing out each seed it asks stop (from the calling goroutine too);
// once stop says so, no further seed starts and the seeds already started
// finish. It returns how many seeds ran: always a prefix of the plan.
func (sh *shell) pool(r campaign.Runner, f simFlags, stop func() bool, emit func(seedResult)) int {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(campaign.WorkerGCPercent))
	}
	start := sh.now()
	opts := campaign.SeedOptions{Wall: func() time.Duration { return sh.now().Sub(start) }}
	total := f.plan.Len()
	workers := min(f.workers, max(total, 1))
	jobs := make(chan int)
	results := make(chan seedResult)
	for w := 0; w < workers; w++ {
		go func() {
			for i := range jobs {
				results <- sh.runOne(r, f.plan.Nth(i), i, opts, f)
			}
		}()
	}
	// A seed is handed out only to an idle worker (next-received <
	// workers, so the send cannot block on a worker that waits to hand in
	// its result), and at most pendingMax seeds run ahead of the oldest one
	// not yet emitted, which bounds the results held for ordering.
	pendingMax := 4 * workers
	order := campaign.NewOrderer[seedResult]()
	next, received, done := 0, 0, 0
	for next < total && next < workers && !stop() {
		jobs <- next
		next++
	}
	for done < next {
		res := <-results
		received++
		for _, ready := range order.Put(res.index, res) {
			emit(ready)
			done++
		}
		for next < total && next-received < workers && next-done < pendingMax && !stop() {
			jobs <- next
			next++
		}
	}
	close(jobs)
	return done
}

// runOne runs one seed on a worker. A panic anywhere in it (a machine's
// assertion, the world, the shrinker) becomes that seed's failure, check
// "panic", so one seed cannot take the campaign's summary down with it.
func (sh *shell) runOne(r campaign.Runner, seed uint64, i int, opts campaign.SeedOptions, f simFlags) (res seedResult) {
	defer func() {
		if p := recover(); p != nil {
			res = sh.panicked(seed, i, p, f, res.dir) // a folder claimed before the panic is used
		}
	}()
	run := campaign.RunSeed(r, seed, opts)
	res = seedResult{index: i, run: run}
	if run.Failed() && f.out != "" {
		res.dir, res.dirErr = claimBundleDir(f.out, seed)
		res.bundle = campaign.Bundle(r, run, campaign.BundleOptions{
			Dir: res.dir, Config: f.config, Commit: f.commit})
		res.run.Report.Shrink = campaign.BundleShrinkNote(res.bundle)
	}
	res.run.Trace = nil // held back in order; the bundle has it
	res.run.Outcome.HTML = nil
	return res
}

// panicked reports seed's run as failed with check "panic" and the panic's
// message; its bundle (with -out) holds the violation and the replay.
func (sh *shell) panicked(seed uint64, i int, p any, f simFlags, dir string) seedResult {
	rep := campaign.PanicReport(seed, fmt.Sprint(p))
	res := seedResult{index: i, run: campaign.SeedRun{Report: rep}}
	if f.out != "" {
		res.dir = dir
		if dir == "" {
			res.dir, res.dirErr = claimBundleDir(f.out, seed)
		}
		res.bundle = []campaign.File{
			{Name: "violation.txt", Data: []byte(fmt.Sprintf("SEED=%d\nfirst violated check: %s\n  %s\n",
				seed, campaign.CheckPanic, rep.Violations[0].Message))},
			{Name: "replay.txt", Data: []byte(campaign.ReplayCommand(seed, f.config) + "\n")},
		}
	}
	return res
}
