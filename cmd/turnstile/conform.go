package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"slices"
	"syscall"

	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/scenarios/conform"
)

const usageConform = `usage: turnstile conform runtime [flags] -- CMD [ARGS...]
       turnstile conform runtime [flags] -listen ADDR
       turnstile conform core [flags] -url URL -credential-file F
       turnstile conform profile

Plays the wire scenarios (scenarios/testdata, built in) against another
implementation in real time and prints one line per scenario: PASS, FAIL
with the first differing frame or assertion, or SKIP with the reason;
assertions that cannot be made from outside are listed as not checked.
A scenario that submits Turns fails when no Run started in it (it
exercised nothing), unless it asserts with core-state what became of them.
Exit status: 0 when no scenario failed and at least one was played, 1 when
one failed, 2 on a usage error, 4 when nothing was checked: no scenario
was played, or scenarios were skipped for lack of a credential (conform
core without -api-key-file or -operator-token-file skips every scenario
with api steps).

conform runtime serves the scripted Core of every scenario. With CMD it
starts the Runtime once per scenario with TURNSTILE_CORE_URL,
TURNSTILE_DEVICE_ID, TURNSTILE_CREDENTIAL_FILE, TURNSTILE_CONFORM_DECLARATION
(the kinds and daemon version to declare) and TURNSTILE_CONFORM_CONTROL
(the control channel for harness steps) in its environment and stops it
with SIGTERM; with -listen the Runtime, started separately, connects as
device "runtime" with credential "synthetic-contract-credential".

conform core plays the scripted Runtime against a Core: bootstrap and
WebSocket as the device -device with the credential in -credential-file;
the api steps use the Agents API (/v1) with the key in -api-key-file, the
core-state steps and user-choice answers the operator routes (/core/v1) with
the operator token. The Core under test must qualify the scenarios' Harness
kinds, contract and contract-no-images (the same profile without images):
conform profile prints their engine profile file, for turnstile core
-kinds contract,contract-no-images -engine-profiles FILE.

` + exitCodes

// Errors of turnstile conform's arguments.
var (
	ErrConformSide    = errors.New("want `conform runtime`, `conform core` or `conform profile`")
	ErrConformTarget  = errors.New("give the Runtime's command after -- or -listen ADDR, not both")
	ErrConformCoreURL = errors.New("-url and -credential-file are required")
	ErrConformRun     = errors.New("-run is not a regular expression")
	// ErrConformCredential: scenarios were skipped because a credential
	// was not given; the run did not check what it was asked to.
	ErrConformCredential = errors.New("scenarios skipped for lack of a credential")
	// ErrConformNothingPlayed: every selected scenario was skipped.
	ErrConformNothingPlayed = errors.New("no scenario was played: nothing was checked")
)

type conformFlags struct {
	run, dir                 string
	opts                     conform.Options
	listen                   string
	url, device, cred, token string
	key                      string
	verbose                  bool
}

func (sh *shell) conformFlagSet(side string) (*flag.FlagSet, *conformFlags) {
	fs := sh.newFlags("conform "+side, usageConform)
	f := &conformFlags{}
	fs.StringVar(&f.run, "run", "", "play only the scenarios whose name matches this regular expression")
	fs.StringVar(&f.dir, "scenarios", "", "read the scenarios from this directory instead of the built-in ones")
	fs.DurationVar(&f.opts.Quiet, "quiet", 0, "how long a side must stay silent to count as having sent nothing (default 150ms)")
	fs.DurationVar(&f.opts.FrameTimeout, "frame-timeout", 0, "how long to wait for an expected frame, connection or control answer (default 10s)")
	fs.DurationVar(&f.opts.MaxWait, "max-wait", 0, "skip scenarios whose advance and silence steps wait longer in all (default 15s)")
	fs.BoolVar(&f.verbose, "v", false, "name each scenario on stderr as it starts (and, for runtime, copy the Runtime's output there)")
	if side == "runtime" {
		fs.StringVar(&f.listen, "listen", "", "serve the scripted Core at this address for a Runtime started separately")
	} else {
		fs.StringVar(&f.url, "url", "", "Core's base URL, e.g. http://127.0.0.1:8080")
		fs.StringVar(&f.device, "device", "runtime", "the device ID the scripted Runtime connects as")
		fs.StringVar(&f.cred, "credential-file", "", "file holding that device's credential")
		fs.StringVar(&f.key, "api-key-file", "", "file holding an API key of Core's Agents API, /v1 (turnstile core key add; without it, scenarios with api steps are skipped)")
		fs.StringVar(&f.token, "operator-token-file", "", "file holding the operator token of Core's operator routes, /core/v1 (without it, scenarios with api steps are skipped)")
	}
	return fs, f
}

func (sh *shell) cmdConform(args []string) int {
	if len(args) > 0 && args[0] == "profile" {
		if len(args) > 1 {
			return sh.usageError("conform profile", fmt.Errorf("%w: %v", ErrArgs, args[1:]))
		}
		_, _ = sh.stdout.Write(scenarios.ContractProfile())
		return exitOK
	}
	if len(args) == 0 || (args[0] != "runtime" && args[0] != "core") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			fmt.Fprint(sh.stdout, usageConform)
			return exitOK
		}
		return sh.usageError("conform", ErrConformSide)
	}
	side := args[0]
	fs, f := sh.conformFlagSet(side)
	if code, ok := sh.parse(fs, args[1:]); !ok {
		return code
	}
	if f.run != "" {
		re, err := regexp.Compile(f.run)
		if err != nil {
			return sh.usageError("conform "+side, ErrConformRun)
		}
		f.opts.Run = re
	}
	all, err := loadConformScenarios(f.dir, f.opts.Run)
	if err != nil {
		fmt.Fprintf(sh.stderr, "turnstile conform %s: %v\n", side, err)
		return exitUsage
	}
	if f.verbose {
		f.opts.Log = sh.stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var rep conform.Report
	if side == "runtime" {
		rep, err = sh.conformRuntime(ctx, fs.Args(), f, all)
	} else {
		rep, err = sh.conformCore(ctx, fs.Args(), f, all)
	}
	var usage *conformUsage
	if errors.As(err, &usage) {
		return sh.usageError("conform "+side, usage.err)
	}
	if err != nil {
		fmt.Fprintf(sh.stderr, "turnstile conform %s: %v\n", side, err)
		return exitFail
	}
	rep.Write(sh.stdout)
	return sh.conformVerdict(side, rep)
}

// conformVerdict is the exit code of a conform run: a failure first, then
// a run that checked less than it was asked to (skips for a missing
// credential, or nothing played) is vacuous, never a pass.
func (sh *shell) conformVerdict(side string, rep conform.Report) int {
	pass, fail, _ := rep.Counts()
	code := exitOK
	if fail > 0 {
		code = exitFail
	}
	missing := rep.SkippedFor()
	creds := make([]string, 0, len(missing))
	for c := range missing {
		creds = append(creds, c)
	}
	slices.Sort(creds)
	for _, c := range creds {
		fmt.Fprintf(sh.stderr, "turnstile conform %s: %v: %d of %d scenarios skipped for lack of %s; give it to play them\n",
			side, ErrConformCredential, missing[c], len(rep.Results), c)
	}
	if pass+fail == 0 {
		fmt.Fprintf(sh.stderr, "turnstile conform %s: %v (%d scenarios, all skipped)\n", side, ErrConformNothingPlayed, len(rep.Results))
	}
	if code == exitOK && (len(creds) > 0 || pass+fail == 0) {
		code = exitVacuous
	}
	return code
}

type conformUsage struct{ err error }

func (u *conformUsage) Error() string { return u.err.Error() }

func loadConformScenarios(dir string, run *regexp.Regexp) ([]*scenarios.Scenario, error) {
	var all []*scenarios.Scenario
	var err error
	if dir == "" {
		all, err = scenarios.Embedded()
	} else if all, err = scenarios.ParseFS(os.DirFS(dir), "."); err == nil && len(all) == 0 {
		err = fmt.Errorf("-scenarios %s: no scenarios (*.txt) there", dir)
	}
	if err != nil {
		return nil, err
	}
	for _, sc := range all {
		if run == nil || run.MatchString(sc.Name) {
			return all, nil
		}
	}
	return nil, fmt.Errorf("-run %q matches no scenario", run)
}

func (sh *shell) conformRuntime(ctx context.Context, cmd []string, f *conformFlags, all []*scenarios.Scenario) (conform.Report, error) {
	if (len(cmd) == 0) == (f.listen == "") {
		return conform.Report{}, &conformUsage{ErrConformTarget}
	}
	if len(cmd) > 0 {
		if _, err := exec.LookPath(cmd[0]); err != nil {
			return conform.Report{}, &conformUsage{fmt.Errorf("the Runtime's command: %w", err)}
		}
	}
	addr := f.listen
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return conform.Report{}, &conformUsage{fmt.Errorf("-listen %s: %w", addr, err)}
	}
	defer l.Close()
	t := conform.RuntimeTarget{Command: cmd, Listener: l}
	if f.verbose {
		t.Output = sh.stderr
	}
	if f.listen != "" {
		fmt.Fprintf(sh.stderr, "turnstile conform runtime: scripted Core at http://%s (device %s, credential %q; control channel ws://%s%s)\n",
			l.Addr(), conform.RuntimeDevice, conform.RuntimeCredential, l.Addr(), scenarios.ControlPath)
	}
	return conform.RunRuntime(ctx, t, all, f.opts)
}

func (sh *shell) conformCore(ctx context.Context, args []string, f *conformFlags, all []*scenarios.Scenario) (conform.Report, error) {
	if len(args) > 0 {
		return conform.Report{}, &conformUsage{fmt.Errorf("%w %q", ErrArgs, args)}
	}
	if f.url == "" || f.cred == "" {
		return conform.Report{}, &conformUsage{ErrConformCoreURL}
	}
	cred, err := readCredentialFile(f.cred)
	if err != nil {
		return conform.Report{}, &conformUsage{err}
	}
	t := conform.CoreTarget{URL: f.url, Device: f.device, Credential: cred}
	if f.token != "" {
		if t.APIToken, err = readCredentialFile(f.token); err != nil {
			return conform.Report{}, &conformUsage{fmt.Errorf("operator token: %w", err)}
		}
	}
	if f.key != "" {
		if t.APIKey, err = readCredentialFile(f.key); err != nil {
			return conform.Report{}, &conformUsage{fmt.Errorf("API key: %w", err)}
		}
	}
	return conform.RunCore(ctx, t, all, f.opts)
}
