package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/campaign"
)

const usageReplay = `usage: turnstile replay (-seed S [-devices D] [-turns T] [-faults K] | -schedule FILE)
                        [-trace FILE] [-tail N] [-save FILE [-note TEXT]]

Replays one seed, or a stored schedule (a failure report's shrunk.json or
options.json, a regression corpus entry, or a bare schedule), and prints the
schedule, the tail of the trace, the violations and the fingerprint. The
same seed and flags always give the same fingerprint. When the file records
a fingerprint, the replay is compared with it. -save writes the run as a
regression corpus entry (see sim/testdata/regressions/README.md).
Exits 1 when a check fails or a recorded fingerprint is not reproduced, 2
on a usage error, 3 when the case file cannot be read or parsed or an
output file cannot be written (checked before the run).

` + exitCodes

const usageShrink = `usage: turnstile shrink (-seed S [-devices D] [-turns T] [-faults K] | -schedule FILE) [-o FILE]

Minimises the fault schedule and the workload of a failing seed while the
same check keeps failing, prints the counts before and after, and writes the
shrunk schedule (replay it with 'turnstile replay -schedule FILE').
Exits 0 (saying so) when the seed passes: there is nothing to shrink.
Exits 3 when the case file cannot be read or parsed or the output file
cannot be written (checked before the run).

` + exitCodes

// ErrSeedAndSchedule rejects -seed together with -schedule.
var ErrSeedAndSchedule = errors.New("-seed and -schedule are exclusive")

// target is what replay and shrink run: a seed or a stored schedule.
type target struct {
	seed     uint64
	schedule *sim.Schedule
	config   campaign.Config
	recorded string // fingerprint recorded in the file, if any
	label    string
}

// targetFlags registers the flags naming a target; the returned function
// resolves them after parsing.
func (sh *shell) targetFlags(fs *flag.FlagSet) func() (target, error) {
	seed := fs.Uint64("seed", 0, "the seed to run")
	schedule := fs.String("schedule", "", "a stored schedule or case file (shrunk.json, options.json, a corpus entry)")
	config := sh.configFlags(fs)
	return func() (target, error) {
		if fs.NArg() > 0 {
			return target{}, fmt.Errorf("%w: %v", ErrArgs, fs.Args())
		}
		cfg, err := config()
		if err != nil {
			return target{}, err
		}
		switch {
		case flagSet(fs, "seed") && *schedule != "":
			return target{}, ErrSeedAndSchedule
		case flagSet(fs, "seed"):
			return target{seed: *seed, config: cfg, label: fmt.Sprintf("seed %d", *seed)}, nil
		case *schedule == "":
			return target{}, ErrNoSeed
		}
		b, err := os.ReadFile(*schedule)
		if err != nil {
			return target{}, toolError{err}
		}
		c, err := campaign.ParseCase(b)
		if err != nil {
			return target{}, toolError{fmt.Errorf("%s: %w", *schedule, err)}
		}
		explicit := flagSet(fs, "devices") || flagSet(fs, "turns") || flagSet(fs, "faults")
		if !c.Bare {
			if explicit {
				return target{}, ErrScheduleFlag
			}
			cfg = c.Config
		}
		return target{seed: c.Seed, schedule: &c.Schedule, config: cfg, recorded: c.Fingerprint,
			label: "schedule " + *schedule}, nil
	}
}

func (t target) run(r campaign.Runner) campaign.Outcome {
	if t.schedule != nil {
		return r.Replay(*t.schedule)
	}
	return r.Run(t.seed)
}

func (sh *shell) cmdReplay(args []string) int {
	fs := sh.newFlags("replay", usageReplay)
	resolve := sh.targetFlags(fs)
	traceFile := fs.String("trace", "", "write the full trace to this file")
	tail := fs.Int("tail", 20, "trace lines to print from the end of the run")
	save := fs.String("save", "", "write the run as a regression case (config, schedule, fingerprint, commit) to this file")
	commit := fs.String("commit", "", "commit recorded by -save (default: git rev-parse HEAD)")
	note := fs.String("note", "saved by turnstile replay -save", "note recorded by -save: why the run is kept")
	if code, ok := sh.parse(fs, args); !ok {
		return code
	}
	t, err := resolve()
	if err != nil {
		return sh.targetError("replay", err)
	}
	for _, path := range []string{*traceFile, *save} {
		if err := checkWritable(path); err != nil {
			fmt.Fprintf(sh.stderr, "turnstile replay: %v\n", err)
			return exitTool
		}
	}
	r := sh.newRunner(t.config)
	out := t.run(r)
	res := out.Result
	sh.printRun(t, out, *tail)
	code := exitOK
	if res.Failed() || string(out.Lin.Result) == "Illegal" {
		code = exitFail
	}
	if t.recorded != "" && t.recorded != res.Fingerprint {
		fmt.Fprintf(sh.stdout, "recorded fingerprint DIFFERS: file has %s\n", t.recorded)
		code = exitFail
	} else if t.recorded != "" {
		fmt.Fprintf(sh.stdout, "recorded fingerprint reproduced\n")
	}
	if *traceFile != "" {
		if err := sh.writeTrace(r, t, res.Fingerprint, *traceFile); err != nil {
			fmt.Fprintf(sh.stderr, "turnstile replay: %v\n", err)
			return exitTool
		}
	}
	if *save != "" {
		if *commit == "" {
			*commit = sh.commit()
		}
		c := campaign.Case{Seed: t.seed, Config: t.config, Commit: *commit, Check: res.FailedCheck(),
			Fingerprint: res.Fingerprint, Schedule: res.Schedule, Note: *note}
		if err := os.WriteFile(*save, c.Marshal(), 0o644); err != nil {
			fmt.Fprintf(sh.stderr, "turnstile replay: %v\n", err)
			return exitTool
		}
		fmt.Fprintf(sh.stdout, "saved: %s\n", *save)
	}
	return code
}

// printRun prints a replayed run: schedule, trace tail, verdicts and
// fingerprint.
func (sh *shell) printRun(t target, out campaign.Outcome, tail int) {
	w, res := sh.stdout, out.Result
	fmt.Fprintf(w, "SEED=%d\n", t.seed)
	fmt.Fprintf(w, "replay of %s; faults %s, devices %s, turns %s\n", t.label,
		campaign.FaultsString(t.config.Faults), orSeed(t.config.Devices), orDefault(t.config.Turns))
	fmt.Fprintf(w, "schedule: %s\n", res.Schedule)
	lines := res.Tail[max(0, len(res.Tail)-tail):]
	fmt.Fprintf(w, "trace tail (last %d of %d lines):\n", len(lines), res.Stats.TraceLines)
	for _, l := range lines {
		fmt.Fprintf(w, "  %s\n", l)
	}
	fmt.Fprintf(w, "events: %d, virtual time: %s, faults applied: %d\n", res.Stats.Events, res.Stats.End,
		len(out.Timeline))
	if len(res.Violations) == 0 {
		fmt.Fprintf(w, "violations: none\n")
	}
	for _, v := range res.Violations {
		fmt.Fprintf(w, "FAIL %s\n", v)
	}
	if !res.Converged && res.Pending != "" {
		fmt.Fprintf(w, "pending: %s\n", res.Pending)
	}
	lin := strings.ToLower(string(out.Lin.Result))
	if lin == "" {
		lin = campaign.LinNone
	}
	fmt.Fprintf(w, "linearizability: %s\n", lin)
	fmt.Fprintf(w, "fingerprint: %s\n", res.Fingerprint)
}

// writeTrace reruns the target keeping its trace and writes it to path.
func (sh *shell) writeTrace(r campaign.Runner, t target, fingerprint, path string) error {
	res := r.Trace(t.seed, t.schedule)
	if res.Fingerprint != fingerprint {
		return fmt.Errorf("NONDETERMINISTIC: traced rerun has fingerprint %s, replay had %s", res.Fingerprint, fingerprint)
	}
	if err := os.WriteFile(path, []byte(strings.Join(res.Trace, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(sh.stdout, "trace: %s (%d lines)\n", path, len(res.Trace))
	return nil
}

func (sh *shell) cmdShrink(args []string) int {
	fs := sh.newFlags("shrink", usageShrink)
	resolve := sh.targetFlags(fs)
	outFile := fs.String("o", "", "file for the shrunk schedule (default seed-S-shrunk.json)")
	commit := fs.String("commit", "", "commit recorded in the file (default: git rev-parse HEAD)")
	if code, ok := sh.parse(fs, args); !ok {
		return code
	}
	t, err := resolve()
	if err != nil {
		return sh.targetError("shrink", err)
	}
	if *outFile == "" {
		*outFile = fmt.Sprintf("seed-%d-shrunk.json", t.seed)
	}
	if err := checkWritable(*outFile); err != nil {
		fmt.Fprintf(sh.stderr, "turnstile shrink: %v\n", err)
		return exitTool
	}
	if *commit == "" {
		*commit = sh.commit()
	}
	r := sh.newRunner(t.config)
	out := t.run(r)
	fmt.Fprintf(sh.stdout, "SEED=%d (%s)\n", t.seed, t.label)
	if len(out.Result.Violations) == 0 {
		fmt.Fprintf(sh.stdout, "the seed passes: no check fails, nothing to shrink\n")
		return exitOK
	}
	c, s, again := campaign.ShrinkCase(r, out, t.config, *commit)
	printShrink(sh.stdout, out, s, again)
	if err := os.WriteFile(*outFile, c.Marshal(), 0o644); err != nil {
		fmt.Fprintf(sh.stderr, "turnstile shrink: %v\n", err)
		return exitTool
	}
	fmt.Fprintf(sh.stdout, "wrote %s\nreplay: %s\n", *outFile, campaign.ReplayScheduleCommand(*outFile))
	return exitOK
}

func printShrink(w io.Writer, before campaign.Outcome, s sim.ShrinkResult, after campaign.Outcome) {
	fmt.Fprintf(w, "failing check: %s\n", s.Check)
	fmt.Fprintf(w, "shrunk in %d replays\n", s.Runs)
	fmt.Fprintf(w, "  faults:   %d -> %d\n", s.FaultsBefore, s.FaultsAfter)
	fmt.Fprintf(w, "  workload: %d -> %d\n", s.WorkBefore, s.WorkAfter)
	fmt.Fprintf(w, "  events:   %d -> %d\n", before.Result.Stats.Events, after.Result.Stats.Events)
	fmt.Fprintf(w, "  turns:    %d -> %d\n", before.Turns, after.Turns)
	fmt.Fprintf(w, "  inputs:   %d -> %d\n", before.Inputs, after.Inputs)
	if len(after.Result.Violations) > 0 {
		fmt.Fprintf(w, "still fails: %s\n", after.Result.Violations[0])
	} else {
		fmt.Fprintf(w, "the shrunk schedule no longer fails on replay\n")
	}
	fmt.Fprintf(w, "fingerprint: %s\n", after.Result.Fingerprint)
}

// toolError marks a target error that is the tool's (a case file that cannot
// be read or parsed), not the command line's.
type toolError struct{ err error }

func (e toolError) Error() string { return e.err.Error() }
func (e toolError) Unwrap() error { return e.err }

// targetError reports a target that could not be resolved: exit 3 for a
// bad case file, 2 for a bad command line.
func (sh *shell) targetError(cmd string, err error) int {
	var te toolError
	if errors.As(err, &te) {
		fmt.Fprintf(sh.stderr, "turnstile %s: %v\n", cmd, err)
		return exitTool
	}
	return sh.usageError(cmd, err)
}

// checkWritable fails unless a file can be created at path (its directory
// exists and is writable), so a run never ends unable to save its output.
// An empty path passes.
func checkWritable(path string) error {
	if path == "" {
		return nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".write-check-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	f.Close()
	return os.Remove(f.Name())
}
