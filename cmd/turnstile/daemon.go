package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/turnstile-sim/turnstile/adapters/acp"
	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/claude"
	"github.com/turnstile-sim/turnstile/adapters/codex"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	dmachine "github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/daemon/runner"
	"github.com/turnstile-sim/turnstile/daemon/transport"
)

const usageDaemon = `usage: turnstile daemon [flags]

Run a daemon (the Runtime side) that connects to Core as one device and
executes its Turns with the enabled Harness kinds. Every flag has a
TURNSTILE_* environment variable; a flag given wins. The credential is
read from a file, never from a flag or the environment, so that it stays
out of ps and shell history. Without -kinds it enables the real Harnesses
configured (codex with -codex-bin, claude with -claude-bin); the synthetic
Harness, a test fixture, runs only when listed (-kinds synthetic).

Against a Core serving TLS (-core https://...), the bootstrap and the
WebSocket (wss://) verify Core's certificate against the system roots,
plus the CA certificates of -ca-file; a certificate they do not vouch for
stops the daemon with exit 1 and what to fix, as does an https Core whose
bootstrap names a plain ws:// URL.

SIGTERM or SIGINT (or a device_shutdown from Core) releases everything the
daemon owns, waiting up to 10 s; a second signal exits at once.

turnstile conform runtime starts it in conformance mode (environment
TURNSTILE_CONFORM_DECLARATION and TURNSTILE_CONFORM_CONTROL): the
scenario's declared kinds are served by the controlled Harness adapter,
driven over the control channel.

` + exitCodes

// daemonVersion is the build version a heartbeat reports.
const daemonVersion = "turnstile-dev"

type daemonFlags struct {
	core, device, credFile, kinds, script, logLevel, workspaces string
	caFile                                                      string
	codexBin, codexHome, codexApprovals                         string
	claudeBin, claudeHome                                       string
	acpCmd, acpHome                                             string
	prepareWorkspace, state                                     string // runtime_prepare installation roots
	tracing                                                     tracingFlags
	metricsAddr                                                 string // probes' address ("": off)
}

// daemonEnv is the TURNSTILE_* environment value of name, or def.
func daemonEnv(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

func (sh *shell) daemonFlagSet() (*flag.FlagSet, *daemonFlags) {
	fs := sh.newFlags("daemon", usageDaemon)
	f := &daemonFlags{}
	f.core = daemonEnv("TURNSTILE_CORE_URL", "")
	fs.Var(&coreURLsFlag{v: &f.core}, "core",
		"Core's base URL, e.g. http://127.0.0.1:8080 (https://... for a Core serving TLS); for an active–standby pair give every Core's URL (repeat -core, or separate them with commas): after a failure or a lost connection the daemon waits its backoff and tries the next (TURNSTILE_CORE_URL, comma-separated)")
	fs.StringVar(&f.caFile, "ca-file", daemonEnv("TURNSTILE_CA_FILE", ""),
		"PEM CA certificates that vouch for Core's TLS certificate (https, wss), added to the system roots; without it the system roots alone (TURNSTILE_CA_FILE)")
	fs.StringVar(&f.device, "device", daemonEnv("TURNSTILE_DEVICE_ID", ""), "this daemon's device ID (TURNSTILE_DEVICE_ID)")
	fs.StringVar(&f.credFile, "credential-file", daemonEnv("TURNSTILE_CREDENTIAL_FILE", ""),
		"file holding the device credential (TURNSTILE_CREDENTIAL_FILE)")
	fs.StringVar(&f.kinds, "kinds", daemonEnv("TURNSTILE_KINDS", ""),
		"comma-separated Harness kinds to enable; default: the real Harnesses configured (codex with -codex-bin, claude with -claude-bin); synthetic, a test fixture, only when listed (TURNSTILE_KINDS)")
	fs.StringVar(&f.script, "synthetic-script", daemonEnv("TURNSTILE_SYNTHETIC_SCRIPT", ""),
		"JSON file scripting the synthetic Harness's Turns (TURNSTILE_SYNTHETIC_SCRIPT; default: echo the input)")
	fs.StringVar(&f.codexBin, "codex-bin", daemonEnv(codex.EnvBinary, ""),
		"path of the codex binary (version "+codex.Version+") for kind codex (TURNSTILE_CODEX_BIN)")
	fs.StringVar(&f.codexHome, "codex-home", daemonEnv("TURNSTILE_CODEX_HOME", ""),
		"CODEX_HOME for codex app-server: config.toml with the model provider (TURNSTILE_CODEX_HOME; default: inherited)")
	fs.StringVar(&f.codexApprovals, "codex-approvals", daemonEnv("TURNSTILE_CODEX_APPROVALS", codex.ApprovalsNever),
		"approval mode of kind codex: never (tools run unattended) or on-request (approvals become permission requests) (TURNSTILE_CODEX_APPROVALS)")
	fs.StringVar(&f.claudeBin, "claude-bin", daemonEnv(claude.EnvBinary, ""),
		"path of the Claude Code binary (version "+claude.Version+") for kind claude (TURNSTILE_CLAUDE_BIN)")
	fs.StringVar(&f.claudeHome, "claude-home", daemonEnv("TURNSTILE_CLAUDE_HOME", ""),
		"HOME for the Claude Code CLI: its settings and session transcripts (TURNSTILE_CLAUDE_HOME; default: inherited); the model endpoint and key come from ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY")
	fs.StringVar(&f.acpCmd, "acp-cmd", daemonEnv(acp.EnvCommand, ""),
		"command line of the ACP agent (split at white space) for the enabled kind acp:<profile>, profile "+acpProfileNames()+", e.g. `node .../claude-agent-acp/dist/index.js` or `mcode acp` (TURNSTILE_ACP_CMD)")
	fs.StringVar(&f.acpHome, "acp-home", daemonEnv("TURNSTILE_ACP_HOME", ""),
		"HOME for the ACP agent (TURNSTILE_ACP_HOME; default: inherited); the agent's own environment (CLAUDE_CODE_EXECUTABLE, model endpoint and key) is inherited")
	fs.StringVar(&f.workspaces, "workspaces", daemonEnv("TURNSTILE_WORKSPACES", ""),
		"directory holding one workspace directory per Environment ID (created on first use); Turns of a self_hosted or openai_hosted Session run their Harness in it; enables workspace reads, writes and exports, and runtime_prepare installs each transfer into its Environment's directory (TURNSTILE_WORKSPACES; unset: such Turns fail their preparation)")
	fs.StringVar(&f.prepareWorkspace, "prepare-workspace", daemonEnv("TURNSTILE_PREPARE_WORKSPACE", ""),
		"one workspace directory every runtime_prepare transfer installs into, whatever its Environment, instead of the -workspaces binding (TURNSTILE_PREPARE_WORKSPACE; neither set: transfers fail)")
	fs.StringVar(&f.state, "state-dir", daemonEnv("TURNSTILE_STATE_DIR", ""),
		"directory for transfer staging (and, with -prepare-workspace, installed capabilities) (TURNSTILE_STATE_DIR; default: <prepare-workspace or workspaces>/.turnstile)")
	fs.StringVar(&f.logLevel, "log-level", daemonEnv("TURNSTILE_LOG_LEVEL", "info"), "debug, info, warn or error (TURNSTILE_LOG_LEVEL)")
	f.tracing.register(fs)
	fs.StringVar(&f.metricsAddr, "metrics-addr", daemonEnv("TURNSTILE_METRICS_ADDR", ""), daemonMetricsAddrHelp)
	return fs, f
}

// coreURLsFlag is -core: each use adds URLs (comma-separated), and the
// first use replaces the environment's TURNSTILE_CORE_URL.
type coreURLsFlag struct {
	v   *string
	set bool
}

func (c *coreURLsFlag) String() string {
	if c.v == nil {
		return ""
	}
	return *c.v
}

func (c *coreURLsFlag) Set(s string) error {
	if !c.set {
		*c.v, c.set = "", true
	}
	if *c.v != "" {
		*c.v += ","
	}
	*c.v += s
	return nil
}

// splitCoreURLs splits -core's value at commas, dropping blanks.
func splitCoreURLs(v string) []string {
	var out []string
	for _, u := range strings.Split(v, ",") {
		if u = strings.TrimSpace(u); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// Errors of the daemon's configuration.
var (
	errNoCore       = errors.New("-core is required (TURNSTILE_CORE_URL)")
	errNoDevice     = errors.New("-device is required (TURNSTILE_DEVICE_ID)")
	errNoCredential = errors.New("-credential-file is required (TURNSTILE_CREDENTIAL_FILE)")
	errNoKinds      = errors.New("no Harness kind enabled: configure a real Harness (-codex-bin, -claude-bin) or list the kinds with -kinds (TURNSTILE_KINDS; the synthetic test fixture runs only as -kinds synthetic)")
	errACPProfile   = errors.New("-acp-cmd does not say which ACP profile it runs: enable it with -kinds acp:<profile>")
)

// daemonSetup is a validated daemon configuration.
type daemonSetup struct {
	client  *transport.Client
	reg     *agent.Registry
	kinds   []dmachine.KindConfig
	level   slog.Level
	harness *synthetic.Harness
	conform *daemonConform // conformance mode, when the environment asks for it
}

func (sh *shell) cmdDaemon(args []string) int {
	fs, f := sh.daemonFlagSet()
	if code, ok := sh.parse(fs, args); !ok {
		return code // -h exits 0, as for every command
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(sh.stderr, "turnstile daemon: unexpected arguments %q\n", fs.Args())
		return exitUsage
	}
	setup, err := prepareDaemon(f, sh.stderr)
	if err != nil {
		fmt.Fprintf(sh.stderr, "turnstile daemon: refusing to start: %v\n", err)
		return exitUsage
	}
	log := newDaemonLogger(sh.stderr, setup.level, setup.client.Credential)
	var executors runner.Executors = setup.reg
	version := daemonVersion
	if setup.conform != nil {
		executors, version, setup.kinds = setup.conform.ctl, setup.conform.version, setup.conform.kinds
		if f.prepareWorkspace == "" {
			// A scenario may prepare the Environment: install into a
			// scratch workspace of this process's own.
			dir, err := os.MkdirTemp("", "turnstile-conform-workspace-")
			if err != nil {
				fmt.Fprintf(sh.stderr, "turnstile daemon: conformance workspace: %v\n", err)
				return exitUsage
			}
			defer os.RemoveAll(dir)
			f.prepareWorkspace = dir
		}
		if dir, ok := conformWorkspaces(sh, f); ok {
			defer os.RemoveAll(dir)
		}
		setup.conform.ctl.SetWorkspaces(f.workspaces)
	}
	tracer, stopTracing, err := f.tracing.start(context.Background(), "turnstile-daemon", log)
	if err != nil {
		fmt.Fprintf(sh.stderr, "turnstile daemon: refusing to start: %v\n", err)
		return exitUsage
	}
	defer stopTracing()
	reg, metrics := daemonRegistry()
	d := runner.New(withWorkspaces(runner.Config{
		Machine:   dmachine.Config{Kinds: setup.kinds, DaemonVersion: version},
		Executors: executors,
		Client:    setup.client,
		Rand:      rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
		Log:       log,
		Installer: daemonInstaller(f),
		Tracer:    tracer,
		Metrics:   metrics,
	}, f.workspaces))
	stopProbes, err := serveDaemonProbes(f.metricsAddr, d, reg, log)
	if err != nil {
		fmt.Fprintf(sh.stderr, "turnstile daemon: -metrics-addr: %v\n", err)
		return exitFail
	}
	defer stopProbes()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopSignals := handleDaemonSignals(d, log, sh.stderr)
	defer stopSignals()
	if setup.conform != nil {
		go setup.conform.serve(ctx, d, log)
	}
	cores := setup.client.CoreURL
	if len(setup.client.CoreURLs) > 0 {
		cores = strings.Join(setup.client.CoreURLs, ",")
	}
	log.Info("daemon starting", "core", cores, "device", setup.client.DeviceID, "kinds", daemonKindNames(setup.kinds))
	res, err := d.Run(ctx)
	return sh.daemonExit(res, err)
}

func (sh *shell) daemonExit(res runner.Result, err error) int {
	switch {
	case err != nil:
		// A *transport.PermanentError's text ends with what to fix.
		fmt.Fprintf(sh.stderr, "turnstile daemon: %v\n", err)
		return exitFail
	case !res.Complete:
		fmt.Fprintf(sh.stderr, "turnstile daemon: stopped (%s) with %d resources still owned:\n", res.Reason, len(res.Owned))
		for _, r := range res.Owned {
			fmt.Fprintf(sh.stderr, "  %s\n", r)
		}
		return exitFail
	}
	fmt.Fprintf(sh.stderr, "turnstile daemon: stopped (%s); everything released\n", res.Reason)
	return exitOK
}

// prepareDaemon validates the flags, reads the credential and installs
// the registry: everything that can refuse the start happens here, before
// any request reaches Core.
func prepareDaemon(f *daemonFlags, diag io.Writer) (*daemonSetup, error) {
	switch {
	case f.core == "":
		return nil, errNoCore
	case f.device == "":
		return nil, errNoDevice
	case f.credFile == "":
		return nil, errNoCredential
	}
	level, err := parseDaemonLevel(f.logLevel)
	if err != nil {
		return nil, err
	}
	if err := f.tracing.check(); err != nil {
		return nil, err
	}
	if err := codex.CheckApprovals(f.codexApprovals); err != nil {
		return nil, fmt.Errorf("-codex-approvals: %w", err)
	}
	cred, err := readCredentialFile(f.credFile)
	if err != nil {
		return nil, err
	}
	hc, err := coreHTTPClient(f.caFile)
	if err != nil {
		return nil, err
	}
	urls := splitCoreURLs(f.core)
	if len(urls) == 0 {
		return nil, errNoCore
	}
	client := &transport.Client{CoreURL: urls[0], DeviceID: f.device, Credential: cred, HTTP: hc}
	if len(urls) > 1 {
		client.CoreURLs = urls
	}
	if err := client.Validate(); err != nil {
		return nil, err
	}
	h := synthetic.New()
	if f.script != "" {
		if h, err = loadSyntheticScript(f.script); err != nil {
			return nil, err
		}
	}
	conf, err := daemonConformFromEnv()
	if err != nil {
		return nil, err
	}
	enabled, err := daemonKinds(f)
	if err != nil {
		if errors.Is(err, errNoKinds) && conf != nil {
			// conformance mode: the scenario's declaration names the
			// kinds, served by the control channel
			return &daemonSetup{client: client, reg: &agent.Registry{}, level: level, harness: h, conform: conf}, nil
		}
		return nil, err
	}
	decls := []agent.Declaration{synthetic.Declaration(h),
		codex.Declaration(codex.Options{Binary: f.codexBin, Home: f.codexHome, Approvals: f.codexApprovals}),
		claude.Declaration(claude.Options{Binary: f.claudeBin, Home: f.claudeHome})}
	acpDecls, err := acpDeclarations(f, enabled)
	if err != nil {
		return nil, err
	}
	decls = append(decls, acpDecls...)
	reg, kinds, err := runner.Install(context.Background(), decls, enabled, nil, diag)
	if err != nil {
		return nil, err
	}
	return &daemonSetup{client: client, reg: reg, kinds: kinds, level: level, harness: h, conform: conf}, nil
}

// daemonKinds is the list of enabled kinds: -kinds as given, or, without
// it, the real Harnesses configured. The synthetic Harness, a test
// fixture, is never enabled by default.
func daemonKinds(f *daemonFlags) ([]string, error) {
	var enabled []string
	for _, k := range strings.Split(f.kinds, ",") {
		if k = strings.TrimSpace(k); k != "" {
			enabled = append(enabled, k)
		}
	}
	switch {
	case enabled != nil:
		return enabled, nil
	case strings.TrimSpace(f.kinds) != "":
		return nil, fmt.Errorf("%w (-kinds %q lists none)", errNoKinds, f.kinds)
	}
	if f.acpCmd != "" {
		return nil, errACPProfile
	}
	if f.codexBin != "" {
		enabled = append(enabled, codex.Kind)
	}
	if f.claudeBin != "" {
		enabled = append(enabled, claude.Kind)
	}
	if enabled == nil {
		return nil, errNoKinds
	}
	return enabled, nil
}

// errACPKinds refuses one -acp-cmd for more than one ACP kind.
var errACPKinds = errors.New("-acp-cmd runs one ACP agent: enable one acp:<profile> kind")

// acpDeclarations declares one ACP kind per vendor profile; -acp-cmd
// configures the one enabled.
func acpDeclarations(f *daemonFlags, enabled []string) ([]agent.Declaration, error) {
	cmd := strings.Fields(f.acpCmd)
	n := 0
	for _, k := range enabled {
		if strings.HasPrefix(k, acp.KindPrefix) {
			n++
		}
	}
	if n > 1 && len(cmd) > 0 {
		return nil, errACPKinds
	}
	var decls []agent.Declaration
	for _, p := range acp.Profiles() {
		decls = append(decls, acp.Declaration(acp.Options{Profile: p, Command: cmd, Home: f.acpHome}))
	}
	return decls, nil
}

// acpProfileNames lists the ACP vendor profiles.
func acpProfileNames() string {
	var names []string
	for _, p := range acp.Profiles() {
		names = append(names, p.Name)
	}
	return strings.Join(names, " or ")
}

// credentialBytesMax bounds a credential file.
const credentialBytesMax = 4 << 10

// readCredentialFile reads the device credential: one line, surrounding
// whitespace trimmed. The value never reaches an error message.
func readCredentialFile(path string) (string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("credential file: %w", err)
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, credentialBytesMax+1))
	if err != nil {
		return "", fmt.Errorf("credential file: %w", err)
	}
	if len(b) > credentialBytesMax {
		return "", fmt.Errorf("credential file %s is larger than %d bytes", path, credentialBytesMax)
	}
	cred := strings.TrimSpace(string(b))
	switch {
	case cred == "":
		return "", fmt.Errorf("credential file %s is empty", path)
	case strings.ContainsAny(cred, "\r\n"):
		return "", fmt.Errorf("credential file %s holds more than one line", path)
	}
	return cred, nil
}

func parseDaemonLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("-log-level %q: want debug, info, warn or error", s)
	}
	return l, nil
}

func daemonKindNames(kinds []dmachine.KindConfig) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.Kind
	}
	return strings.Join(names, ",")
}

// handleDaemonSignals turns the first SIGTERM or SIGINT into a graceful
// shutdown and a second one into an immediate exit.
func handleDaemonSignals(d *runner.Daemon, log *slog.Logger, stderr io.Writer) func() {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			log.Info("signal received; shutting down (a second signal exits at once)", "signal", s.String())
			d.Shutdown("signal " + s.String())
		case <-done:
			return
		}
		select {
		case s := <-ch:
			fmt.Fprintf(stderr, "turnstile daemon: second signal (%s): exiting at once\n", s)
			os.Exit(exitFail)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// daemonInstaller is the runtime_prepare installer of the flags, or nil
// without a workspace: -prepare-workspace installs every transfer into
// that one directory; otherwise -workspaces binds each transfer to its
// Environment's directory there (<workspaces>/<environment_id>).
func daemonInstaller(f *daemonFlags) *runner.Installer {
	base := f.prepareWorkspace
	if base == "" {
		base = f.workspaces
	}
	if base == "" {
		return nil
	}
	state := f.state
	if state == "" {
		state = filepath.Join(base, ".turnstile")
	}
	if f.prepareWorkspace == "" {
		return &runner.Installer{Root: f.workspaces, State: state}
	}
	return &runner.Installer{Workspace: f.prepareWorkspace, State: state}
}
