package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/sim/campaign"
)

const usageSim = `usage: turnstile sim [-seeds N [-first F] | -seed S] [-shard i/n] [-faults K] [-devices D]
                     [-turns T] [-out DIR] [-json] [-workers W] [-strict]

Runs one seed or a campaign of seeds of the full-stack world and prints a
summary: seeds, events per second, virtual against wall time, faults
injected by kind, rare-state marks hit (a campaign of 1000 seeds or more
fails when an expected mark was never hit), violations and the
linearizability verdicts. The mark verdict is judged only with -faults
swarm (the default): a campaign that restricts fault kinds does not judge
it. Every failing seed and every 50th seed is run twice to audit
determinism. With -out, every failing seed gets a report folder
DIR/seed-S/ with its replay command. A seed whose linearizability check
timed out (unknown) is listed; it fails the campaign only with -strict.

With -json, stdout carries one JSON line per seed (after a header line) for
'turnstile campaign merge'; the banner, progress and summary go to stderr.
Exits 1 when any seed failed (a panic in a run is reported as the seed's
failure, check "panic"), an expected mark was missed, or, with -strict, a
linearizability check was unknown.
`

// simFlags are the parsed flags of the sim command.
type simFlags struct {
	plan    campaign.Plan
	config  campaign.Config
	out     string
	json    bool
	workers int
	commit  string
	strict  bool
}

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
	config := sh.configFlags(fs)
	if code, ok := sh.parse(fs, args); !ok {
		return simFlags{}, code, false
	}
	fail := func(err error) (simFlags, int, bool) { return simFlags{}, sh.usageError("sim", err), false }
	if fs.NArg() > 0 {
		return fail(fmt.Errorf("%w: %v", ErrArgs, fs.Args()))
	}
	f := simFlags{out: *out, json: *jsonOut, workers: *workers, commit: *commit, strict: *strict}
	sh2, err := campaign.ParseShard(*shard)
	if err != nil {
		return fail(err)
	}
	f.plan = campaign.Plan{First: *first, Count: *seeds, Shard: sh2}
	if flagSet(fs, "seed") {
		if flagSet(fs, "seeds") || flagSet(fs, "first") || flagSet(fs, "shard") {
			return fail(ErrSeedAndSeeds)
		}
		f.plan = campaign.Plan{First: *seed, Count: 1, Shard: sh2}
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
		fmt.Fprintf(sh.stdout, "%s\n", campaign.MarshalLine(campaign.NewHeader(f.plan, f.config, f.commit)))
	}
	seeds := f.plan.Seeds()
	sh.banner(info, f, len(seeds))
	if len(seeds) == 0 {
		fmt.Fprintf(info, "turnstile sim: shard %s has no seeds (the campaign has %d)\n", f.plan.Shard, f.plan.Count)
		return exitOK
	}
	if f.out != "" {
		if err := removeStaleBundles(f.out); err != nil {
			fmt.Fprintf(sh.stderr, "turnstile sim: %v\n", err)
			return exitFail
		}
	}
	start := sh.now()
	runner := sh.newRunner(f.config)
	prog := newProgress(sh.stderr, sh.tty, len(seeds), sh.now)
	summary := campaign.NewSummary()
	summary.Config = f.config
	summary.Strict = f.strict
	var writeErr error
	sh.pool(runner, seeds, f, func(r seedResult) {
		summary.Add(r.run.Report)
		if f.json {
			fmt.Fprintf(sh.stdout, "%s\n", campaign.MarshalLine(r.run.Report))
		}
		if r.run.Failed() {
			prog.clear()
			if err := sh.reportFailure(info, r, f); err != nil && writeErr == nil {
				writeErr = err
			}
		}
		prog.add(r.run.Failed())
	})
	prog.finish()
	summary.Elapsed = sh.now().Sub(start)
	summary.Write(info)
	if f.out != "" {
		if err := writeSummary(f.out, summary); err != nil && writeErr == nil {
			writeErr = err
		}
	}
	if writeErr != nil {
		fmt.Fprintf(sh.stderr, "turnstile sim: %v\n", writeErr)
		return exitFail
	}
	if summary.Err() != nil {
		return exitFail
	}
	return exitOK
}

// banner prints the seed range and shard, the SEED= (one seed) or SEEDS=
// (a range) line and how to replay; nothing to replay for an empty shard.
func (sh *shell) banner(w io.Writer, f simFlags, seeds int) {
	fmt.Fprintf(w, "turnstile sim: %s; faults %s, devices %s, turns %s; %d workers; commit %s\n",
		f.plan, campaign.FaultsString(f.config.Faults), orSeed(f.config.Devices), orDefault(f.config.Turns),
		f.workers, f.commit)
	switch {
	case seeds == 0:
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
	dir := campaign.BundleDir(f.out, rep.Seed)
	if err := writeFiles(dir, r.bundle); err != nil {
		return err
	}
	fmt.Fprintf(w, "  report: %s/\n", dir)
	return nil
}

// removeStaleBundles deletes the report folders a previous campaign left in
// out (folders named seed-<n> holding a replay.txt), so that the folders
// present after a campaign are exactly its failing seeds.
func removeStaleBundles(out string) error {
	dirs, err := filepath.Glob(filepath.Join(out, "seed-*"))
	if err != nil {
		return err
	}
	for _, d := range dirs {
		if _, err := strconv.ParseUint(strings.TrimPrefix(filepath.Base(d), "seed-"), 10, 64); err != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "replay.txt")); err != nil {
			continue
		}
		if err := os.RemoveAll(d); err != nil {
			return err
		}
	}
	return nil
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

func writeSummary(dir string, s *campaign.Summary) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "summary.txt"))
	if err != nil {
		return err
	}
	s.Write(f)
	return f.Close()
}

// seedResult is one seed's run and, when it failed and a report folder was
// asked for, the folder's files.
type seedResult struct {
	index  int
	run    campaign.SeedRun
	bundle []campaign.File
}

// pool runs seeds on f.workers goroutines and calls emit with each result
// in seed order, from the calling goroutine.
func (sh *shell) pool(r campaign.Runner, seeds []uint64, f simFlags, emit func(seedResult)) {
	start := sh.now()
	opts := campaign.SeedOptions{Wall: func() time.Duration { return sh.now().Sub(start) }}
	jobs := make(chan int)
	results := make(chan seedResult)
	workers := min(f.workers, max(len(seeds), 1))
	for w := 0; w < workers; w++ {
		go func() {
			for i := range jobs {
				results <- sh.runOne(r, seeds[i], i, opts, f)
			}
		}()
	}
	go func() {
		for i := range seeds {
			jobs <- i
		}
		close(jobs)
	}()
	order := campaign.NewOrderer[seedResult]()
	for range seeds {
		r := <-results
		for _, ready := range order.Put(r.index, r) {
			emit(ready)
		}
	}
}

// runOne runs one seed on a worker. A panic anywhere in it (a machine's
// assertion, the world, the shrinker) becomes that seed's failure, check
// "panic", so one seed cannot take the campaign's summary down with it.
func (sh *shell) runOne(r campaign.Runner, seed uint64, i int, opts campaign.SeedOptions, f simFlags) (res seedResult) {
	defer func() {
		if p := recover(); p != nil {
			res = sh.panicked(seed, i, p, f)
		}
	}()
	run := campaign.RunSeed(r, seed, opts)
	res = seedResult{index: i, run: run}
	if run.Failed() && f.out != "" {
		res.bundle = campaign.Bundle(r, run, campaign.BundleOptions{
			Dir: campaign.BundleDir(f.out, seed), Config: f.config, Commit: f.commit})
		res.run.Report.Shrink = campaign.BundleShrinkNote(res.bundle)
	}
	res.run.Trace = nil // held back in order; the bundle has it
	res.run.Outcome.HTML = nil
	return res
}

// panicked reports seed's run as failed with check "panic" and the panic's
// message; its bundle (with -out) holds the violation and the replay.
func (sh *shell) panicked(seed uint64, i int, p any, f simFlags) seedResult {
	rep := campaign.PanicReport(seed, fmt.Sprint(p))
	res := seedResult{index: i, run: campaign.SeedRun{Report: rep}}
	if f.out != "" {
		res.bundle = []campaign.File{
			{Name: "violation.txt", Data: []byte(fmt.Sprintf("SEED=%d\nfirst violated check: %s\n  %s\n",
				seed, campaign.CheckPanic, rep.Violations[0].Message))},
			{Name: "replay.txt", Data: []byte(campaign.ReplayCommand(seed, f.config) + "\n")},
		}
	}
	return res
}
