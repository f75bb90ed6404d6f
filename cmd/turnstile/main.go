package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/campaign"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/sim/world"
)

// Exit codes, one table for every command (exitCodes, printed by
// 'turnstile -h' and in doc.go).
const (
	exitOK    = 0 // everything asked was checked and held
	exitFail  = 1 // a violation: a failing seed or scenario, a missed expected mark, a missing seed
	exitUsage = 2 // bad flags or arguments
	exitTool  = 3 // bad input or unreadable evidence: a file cannot be read, decoded or written
	// exitVacuous: the run checked nothing, or skipped part of what it was
	// asked to check for lack of a credential; never a pass.
	exitVacuous = 4
	exitNoStore = 5 // the -data directory (or its store) does not exist; nothing was created
)

// exitCodes documents the table above in the commands' help text.
const exitCodes = `exit codes (every command):
  0  pass: everything asked was checked and held
  1  a violation: a seed or scenario failed, an expected mark was missed, seeds are missing
  2  usage error: bad flags or arguments
  3  bad input or unreadable evidence: a shard, case, trace or report file cannot be
     read, decoded or written; Core's TLS certificate or key cannot be loaded
  4  vacuous: the run checked nothing (a merge that read no seed), or skipped scenarios
     for lack of a credential (conform core without -operator-token-file)
  5  no store: the -data directory does not exist (or holds no store); nothing was created
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command line and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	sh := newShell(stdout, stderr)
	sh.commandLine = append([]string{"turnstile"}, args...)
	return sh.main(args)
}

// shell holds everything the commands take from the outside world, so tests
// can replace the clock and the world.
type shell struct {
	stdout, stderr io.Writer
	now            func() time.Time
	// tty reports whether progress goes to a terminal (a redrawn bar) or
	// not (plain lines).
	tty       bool
	commit    func() string
	kinds     []sim.FaultKind
	newRunner func(campaign.Config) campaign.Runner
	workers   int // default worker count
	// fresh draws the first seed of a campaign run without -first.
	fresh func() uint64
	// commandLine is the command as typed, recorded in summary.txt.
	commandLine []string
	// markNeeds maps expected marks to the fault kinds that reach them.
	markNeeds func(check.Mark) ([]sim.FaultKind, bool)
}

func newShell(stdout, stderr io.Writer) *shell {
	return &shell{
		stdout:    stdout,
		stderr:    stderr,
		now:       time.Now,
		tty:       isTerminal(stderr),
		commit:    buildCommit,
		kinds:     worldKinds(),
		newRunner: newWorldRunner,
		workers:   runtime.GOMAXPROCS(0),
		fresh:     freshSeed,
		markNeeds: world.MarkNeeds,
	}
}

const usageMain = `usage: turnstile <command> [flags]

commands:
  sim              run a simulation campaign over many seeds
  replay           replay one seed or a stored schedule, print its fingerprint
  shrink           minimise the faults and workload of a failing seed
  campaign merge   combine the JSON-lines output of campaign shards
  core             run Core: the gateway for daemons, the public API, the SQLite store
  core device      add, list or revoke a device credential
  core key         add, list or revoke an API key of the Agents API (/v1)
  daemon           run a Runtime daemon connected to Core
  conform          play the wire scenarios against another Core or Runtime
  version          print the build: module version, commit, Go and wire versions

Run 'turnstile <command> -h' for a command's flags.

` + exitCodes

func (sh *shell) main(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(sh.stderr, usageMain)
		return exitUsage
	}
	switch args[0] {
	case "sim":
		return sh.cmdSim(args[1:])
	case "replay":
		return sh.cmdReplay(args[1:])
	case "shrink":
		return sh.cmdShrink(args[1:])
	case "campaign":
		return sh.cmdCampaign(args[1:])
	case "version":
		return sh.cmdVersion(args[1:])
	case "core":
		return sh.cmdCore(args[1:])
	case "daemon":
		return sh.cmdDaemon(args[1:])
	case "conform":
		return sh.cmdConform(args[1:])
	case "-h", "-help", "--help", "help":
		fmt.Fprint(sh.stdout, usageMain)
		return exitOK
	}
	fmt.Fprintf(sh.stderr, "turnstile: unknown command %q\n\n%s", args[0], usageMain)
	return exitUsage
}

// newFlags returns a flag set whose usage prints text and the flags.
func (sh *shell) newFlags(name, text string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(sh.stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), text)
		fmt.Fprintln(fs.Output(), "\nflags:")
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args; ok is false when the command must return code.
func (sh *shell) parse(fs *flag.FlagSet, args []string) (code int, ok bool) {
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK, false
	}
	if err != nil {
		return exitUsage, false // the flag package has printed the error and usage
	}
	return exitOK, true
}

// usageError reports a bad flag value or argument.
func (sh *shell) usageError(cmd string, err error) int {
	fmt.Fprintf(sh.stderr, "turnstile %s: %v\nRun 'turnstile %s -h' for usage.\n", cmd, err, cmd)
	return exitUsage
}

// Flag errors of the commands (beside sim/campaign's).
var (
	ErrSeedAndSeeds    = errors.New("-seed runs one seed: drop -seeds, -first and -shard")
	ErrDevices         = errors.New("-devices must be 0 (drawn from the seed) or 1 to 4")
	ErrTurns           = errors.New("-turns must not be negative")
	ErrWorkers         = errors.New("-workers must not be negative")
	ErrArgs            = errors.New("unexpected arguments")
	ErrNoSeed          = errors.New("-seed or -schedule is required")
	ErrScheduleFlag    = errors.New("a case file carries its own configuration; drop -devices, -turns and -faults")
	ErrNoFiles         = errors.New("no shard files given")
	ErrDuration        = errors.New("-duration must not be negative")
	ErrShardNeedsFirst = errors.New("a sharded campaign needs -first: every shard must run the same seed range")
)

// configFlags registers -devices, -turns and -faults; the returned function
// validates them after parsing.
func (sh *shell) configFlags(fs *flag.FlagSet) func() (campaign.Config, error) {
	devices := fs.Int("devices", 0, "daemons (devices) in the world, 1 to 4; 0 draws the number from the seed")
	turns := fs.Int("turns", 0, "turns of the workload; 0 for the world's default")
	faults := fs.String("faults", campaign.FaultsSwarm,
		"fault kinds: swarm (each seed enables a random subset of all kinds), none, or a comma list of:\n"+
			wrapList(kindNames(sh.kinds), 88))
	return func() (campaign.Config, error) {
		if *devices < 0 || *devices > 4 {
			return campaign.Config{}, fmt.Errorf("%w: %d", ErrDevices, *devices)
		}
		if *turns < 0 {
			return campaign.Config{}, fmt.Errorf("%w: %d", ErrTurns, *turns)
		}
		kinds, err := campaign.ParseFaults(*faults, sh.kinds)
		if err != nil {
			return campaign.Config{}, err
		}
		return campaign.Config{Devices: *devices, Turns: *turns, Faults: kinds}, nil
	}
}

func kindNames(kinds []sim.FaultKind) []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = string(k)
	}
	return out
}

// wrapList joins words with ", ", breaking lines before width.
func wrapList(words []string, width int) string {
	var b strings.Builder
	line := 0
	for i, w := range words {
		if i > 0 {
			b.WriteString(",")
			line++
			if line+1+len(w) > width {
				b.WriteString("\n")
				line = 0
			} else {
				b.WriteString(" ")
				line++
			}
		}
		b.WriteString(w)
		line += len(w)
	}
	return b.String()
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// flagSet reports whether the named flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
