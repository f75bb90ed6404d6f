// Command mutants measures the simulation campaign with a mutation suite:
// each mutant of sim/testdata/mutants is applied to a scratch copy of the
// tracked tree, whose campaign (cmd/turnstile sim -json) then runs for
// -seeds seeds; the table says which mutants some checker caught.
//
//	go run ./cmd/mutants [-seeds N] [-run PATTERN] [-jobs J] [-workers W]
//	                     [-out DIR] [-unit=false] [-until-caught] [-want-caught] [-keep] [-list]
//
// It prints the table and totals and writes them to DIR/mutants.md and
// DIR/mutants.json, with each campaign's log under DIR/logs/. It exits 1
// when a mutant is stale, failed to build or its campaign failed to run
// (the suite needs repair), and, with -want-caught, when a selected mutant
// was not caught by a checker.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/internal/mutants"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

type flags struct {
	opts       mutants.Options
	dir        string
	pattern    string
	wantCaught bool
	list       bool
}

func parse(args []string, stderr io.Writer) (flags, error) {
	fs := flag.NewFlagSet("mutants", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f flags
	fs.IntVar(&f.opts.Seeds, "seeds", 2000, "campaign seeds per mutant")
	fs.IntVar(&f.opts.Jobs, "jobs", 1, "mutants measured in parallel")
	fs.IntVar(&f.opts.Workers, "workers", 0, "seeds in parallel per campaign; 0 for the CPUs shared among -jobs")
	fs.StringVar(&f.pattern, "run", "", "only the mutants whose name matches this regular expression")
	fs.StringVar(&f.dir, "dir", "sim/testdata/mutants", "directory of mutant files, relative to the module root")
	fs.StringVar(&f.opts.Out, "out", "out/mutants", "directory for the table and the campaign logs")
	fs.BoolVar(&f.opts.Unit, "unit", true, "also run the unit tests of each mutated package")
	fs.BoolVar(&f.opts.Keep, "keep", false, "keep the mutated copies")
	fs.BoolVar(&f.opts.UntilCaught, "until-caught", false, "stop each campaign at its first failing seed (failing seeds are then not counted)")
	fs.BoolVar(&f.wantCaught, "want-caught", false, "exit 1 unless every selected mutant is caught by a checker")
	fs.BoolVar(&f.list, "list", false, "only list the mutants and whether each still applies (stale)")
	fs.DurationVar(&f.opts.Timeout, "timeout", 30*time.Minute, "limit of each build, campaign and test run")
	if err := fs.Parse(args); err != nil {
		return flags{}, err
	}
	switch {
	case fs.NArg() > 0:
		return flags{}, fmt.Errorf("unexpected arguments %v", fs.Args())
	case f.opts.Seeds < 1:
		return flags{}, fmt.Errorf("-seeds must be at least 1, not %d", f.opts.Seeds)
	case f.opts.Jobs < 1:
		return flags{}, fmt.Errorf("-jobs must be at least 1, not %d", f.opts.Jobs)
	case f.opts.Workers < 0:
		return flags{}, fmt.Errorf("-workers must not be negative")
	case f.opts.Timeout <= 0:
		return flags{}, fmt.Errorf("-timeout must be positive")
	}
	if f.opts.Workers == 0 {
		f.opts.Workers = max(1, runtime.NumCPU()/f.opts.Jobs)
	}
	return f, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	f, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var root string
	var all, ms []mutants.Mutant
	if err == nil {
		root, all, ms, err = load(&f)
	}
	if err != nil {
		fmt.Fprintf(stderr, "mutants: %v\n", err)
		return 2
	}
	if f.list {
		return list(root, ms, stdout)
	}
	f.opts.Root, f.opts.Log = root, stderr
	if !filepath.IsAbs(f.opts.Out) {
		f.opts.Out = filepath.Join(root, f.opts.Out)
	}
	if f.opts.Go, err = exec.LookPath("go"); err == nil {
		f.opts.Scratch, err = os.MkdirTemp("", "turnstile-mutants-")
	}
	if err != nil {
		fmt.Fprintf(stderr, "mutants: %v\n", err)
		return 2
	}
	if !f.opts.Keep {
		defer os.RemoveAll(f.opts.Scratch)
	}
	fmt.Fprintf(stderr, "mutants: %d of %d mutants, %d seeds each, %d at a time with %d workers; copies in %s\n",
		len(ms), len(all), f.opts.Seeds, f.opts.Jobs, f.opts.Workers, f.opts.Scratch)
	commit := mutants.Commit(root)
	f.opts.Done = func(rs []mutants.Result) {
		var finished []mutants.Result
		for _, r := range rs {
			if r.Status != "" {
				finished = append(finished, r)
			}
		}
		// Partial tables survive an interrupted run; errors surface at the end.
		_ = writeOut(f.opts.Out, mutants.Report{Seeds: f.opts.Seeds, Commit: commit, Results: finished})
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	results, err := mutants.Run(ctx, f.opts, ms)
	if err != nil {
		fmt.Fprintf(stderr, "mutants: %v\n", err)
		return 1
	}
	return report(f, root, results, stdout, stderr)
}

// load finds the module root and reads the suite, all of it and the
// selected mutants.
func load(f *flags) (root string, all, selected []mutants.Mutant, err error) {
	if root, err = moduleRoot(); err != nil {
		return "", nil, nil, err
	}
	if !filepath.IsAbs(f.dir) {
		f.dir = filepath.Join(root, f.dir)
	}
	if all, err = mutants.Load(f.dir); err != nil {
		return "", nil, nil, err
	}
	selected, err = mutants.Select(all, f.pattern)
	return root, all, selected, err
}

func report(f flags, root string, results []mutants.Result, stdout, stderr io.Writer) int {
	if err := mutants.WriteText(stdout, results); err != nil {
		fmt.Fprintf(stderr, "mutants: %v\n", err)
		return 1
	}
	rep := mutants.Report{Seeds: f.opts.Seeds, Commit: mutants.Commit(root), Results: results}
	if err := writeOut(f.opts.Out, rep); err != nil {
		fmt.Fprintf(stderr, "mutants: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "mutants: table in %s\n", filepath.Join(f.opts.Out, "mutants.md"))
	t := mutants.Sum(results)
	code := 0
	if t.Stale+t.BuildFailed+t.Errors > 0 {
		fmt.Fprintf(stderr, "mutants: %d stale, %d build-failed, %d errors: the suite needs repair\n",
			t.Stale, t.BuildFailed, t.Errors)
		code = 1
	}
	if f.wantCaught && t.Caught != len(results) {
		var missed []string
		for _, r := range results {
			if r.Status != mutants.StatusCaught {
				missed = append(missed, r.Name+" ("+string(r.Status)+")")
			}
		}
		fmt.Fprintf(stderr, "mutants: not caught by a checker: %s\n", strings.Join(missed, ", "))
		code = 1
	}
	return code
}

// list prints each mutant and whether it applies to the work tree at root;
// it exits 1 when one is stale.
func list(root string, ms []mutants.Mutant, stdout io.Writer) int {
	code := 0
	for _, m := range ms {
		status := "ok"
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(m.File)))
		if err == nil {
			_, err = m.Mutate(string(data))
		}
		if err != nil {
			status, code = "stale: "+err.Error(), 1
		}
		fmt.Fprintf(stdout, "%s\t%s\t%s\t%s\n", m.Name, m.Family, m.File, status)
	}
	return code
}

func writeOut(dir string, rep mutants.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	md, err := os.Create(filepath.Join(dir, "mutants.md"))
	if err != nil {
		return err
	}
	fmt.Fprintf(md, "# Mutation suite: %d seeds per mutant, commit %s\n\n", rep.Seeds, rep.Commit)
	werr := mutants.WriteMarkdown(md, rep.Results)
	if err := errors.Join(werr, md.Close()); err != nil {
		return err
	}
	js, err := os.Create(filepath.Join(dir, "mutants.json"))
	if err != nil {
		return err
	}
	return errors.Join(mutants.WriteJSON(js, rep), js.Close())
}

func moduleRoot() (string, error) {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", fmt.Errorf("not inside a git work tree: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}
