package mutants

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options configure a suite run.
type Options struct {
	Root    string // the module root, a git work tree
	Scratch string // where the mutated copies are made
	Out     string // where each mutant's campaign log is kept; "" for none
	Seeds   int    // campaign seeds per mutant
	Workers int    // seeds in parallel within one campaign
	Jobs    int    // mutants in parallel
	Unit    bool   // also run the unit tests of each mutated package
	Keep    bool   // keep the mutated copies
	// UntilCaught stops each campaign at its first failing seed (sim
	// -until-fail): the first failing seed is measured, the count of
	// failing seeds is not.
	UntilCaught bool
	Timeout     time.Duration
	Go          string    // the go command
	Log         io.Writer // one progress line per finished mutant
	// Done, when set, is called after each mutant with the results so
	// far (unfinished ones have an empty Status), under a lock.
	Done func([]Result)
}

// binary is the campaign executable built in each copy.
const binary = "turnstile-mutant"

// TrackedFiles lists the files git tracks under root.
func TrackedFiles(root string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %w", root, err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("git tracks no file in %s", root)
	}
	return files, nil
}

// CopyTree copies files (slash paths relative to root, as git lists them)
// from root to dst. A tracked file deleted from the work tree is skipped.
func CopyTree(root, dst string, files []string) error {
	for _, f := range files {
		src := filepath.Join(root, filepath.FromSlash(f))
		info, err := os.Lstat(src)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(to, data, info.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}

// Run measures every mutant, Jobs at a time, and returns the results in the
// order of ms.
func Run(ctx context.Context, o Options, ms []Mutant) ([]Result, error) {
	files, err := TrackedFiles(o.Root)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Scratch, 0o755); err != nil {
		return nil, err
	}
	results := make([]Result, len(ms))
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range max(o.Jobs, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r := o.runOne(ctx, ms[i], files)
				mu.Lock()
				results[i] = r
				done++
				o.progress(done, len(ms), r)
				if o.Done != nil {
					o.Done(results)
				}
				mu.Unlock()
			}
		}()
	}
	for _, i := range interleave(ms) {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return results, ctx.Err()
}

// interleave orders the indexes of ms round-robin over their target roots
// (wire, core, daemon), so that an interrupted run has measured every root.
func interleave(ms []Mutant) []int {
	byRoot := map[string][]int{}
	for i, m := range ms {
		root := strings.Split(m.File, "/")[0]
		byRoot[root] = append(byRoot[root], i)
	}
	var out []int
	roots := append(slices.Clone(Targets), "sim") // sim: the ModelFiles
	for len(out) < len(ms) {
		for _, root := range roots {
			if q := byRoot[root]; len(q) > 0 {
				out = append(out, q[0])
				byRoot[root] = q[1:]
			}
		}
	}
	return out
}

func (o Options) progress(done, total int, r Result) {
	if o.Log == nil {
		return
	}
	line := fmt.Sprintf("[%d/%d] %s: %s", done, total, r.Name, r.Status)
	if r.FailingSeeds > 0 {
		line += fmt.Sprintf(" (first seed %d, %d failing, first check %s)", r.FirstSeed, r.FailingSeeds, r.FirstCheck)
	}
	if r.Detail != "" {
		line += ": " + firstLine(r.Detail)
	}
	fmt.Fprintf(o.Log, "%s; unit tests %s; %s\n", line, r.Unit, r.Elapsed)
}

// runOne copies the tree, applies m, builds the campaign, runs it and the
// unit tests of m's package.
func (o Options) runOne(ctx context.Context, m Mutant, files []string) (r Result) {
	start := time.Now()
	r = newResult(m)
	defer func() { r.Elapsed = roundElapsed(time.Since(start)) }()
	dir, err := os.MkdirTemp(o.Scratch, m.Name+"-")
	if err != nil {
		r.Status, r.Detail = StatusError, err.Error()
		return r
	}
	if !o.Keep {
		defer os.RemoveAll(dir)
	}
	if err := CopyTree(o.Root, dir, files); err != nil {
		r.Status, r.Detail = StatusError, err.Error()
		return r
	}
	if err := m.Apply(dir); err != nil {
		r.Status, r.Detail = StatusStale, err.Error()
		if !errors.Is(err, ErrStale) {
			r.Status = StatusError
		}
		return r
	}
	if out, err := o.command(ctx, dir, o.Go, "build", "-trimpath", "-o", binary, "./cmd/turnstile"); err != nil {
		r.Status, r.Detail = StatusBuildFailed, tail(out, 6)
		if ctx.Err() != nil {
			r.Status, r.Detail = StatusError, "interrupted"
		}
		return r
	}
	c, err := o.campaign(ctx, dir, m)
	if err != nil {
		r.Status, r.Detail = StatusError, err.Error()
	} else {
		r.fill(c)
	}
	if o.Unit {
		r.Unit = o.unitTests(ctx, dir, m)
	}
	if ctx.Err() != nil {
		// Killed midway: nothing of it is a measurement.
		r = newResult(m)
		r.Status, r.Detail = StatusError, "interrupted"
	}
	return r
}

// campaign runs the mutated campaign and reads its JSON lines. Exit 1 is
// the campaign failing, which is what a caught mutant does.
func (o Options) campaign(ctx context.Context, dir string, m Mutant) (Campaign, error) {
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	// -first 1: every mutant is judged on the same fixed range, so first
	// failing seeds compare across mutants and runs
	cmd := exec.CommandContext(ctx, filepath.Join(dir, binary), "sim", "-seeds", strconv.Itoa(o.Seeds), "-first", "1",
		"-json", "-workers", strconv.Itoa(max(o.Workers, 1)), "-commit", "mutant-"+m.Name)
	if o.UntilCaught {
		cmd.Args = append(cmd.Args, "-until-fail", "-out", filepath.Join(dir, "out", "sim"))
	}
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if o.Out != "" {
		if werr := os.MkdirAll(filepath.Join(o.Out, "logs"), 0o755); werr == nil {
			_ = os.WriteFile(filepath.Join(o.Out, "logs", m.Name+".txt"), stderr.Bytes(), 0o644)
		}
	}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return Campaign{}, fmt.Errorf("campaign timed out after %s", o.Timeout)
	case errors.As(err, &exit) && exit.ExitCode() == 1:
	case err != nil:
		return Campaign{}, fmt.Errorf("campaign: %v: %s", err, tail(stderr.Bytes(), 3))
	}
	c, err := ReadCampaign(&stdout)
	if err != nil {
		return Campaign{}, err
	}
	if c.Seeds != o.Seeds && !(o.UntilCaught && c.FailingSeeds > 0 && c.Seeds < o.Seeds) {
		return Campaign{}, fmt.Errorf("campaign reported %d of %d seeds: %s", c.Seeds, o.Seeds, tail(stderr.Bytes(), 3))
	}
	return c, nil
}

// unitTests runs `go test` on the mutated package.
func (o Options) unitTests(ctx context.Context, dir string, m Mutant) Unit {
	out, err := o.command(ctx, dir, o.Go, "test", "-trimpath", "-count=1", "-timeout", o.Timeout.String(), m.Package())
	switch {
	case err == nil:
		return UnitMissed
	case bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("[setup failed]")):
		return UnitBuildFailed
	}
	return UnitCaught
}

func (o Options) command(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	return cmd.CombinedOutput()
}

// tail keeps the last n lines of out, on one line.
func tail(out []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}

// Commit names the tree at root: its HEAD, marked "+dirty" when tracked
// files differ from it.
func Commit(root string) string {
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(head))
	if st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		c += "+dirty"
	}
	return c
}
