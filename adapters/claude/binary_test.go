package claude

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// The fetch script and the Go constants pin the same version and checksum.
func TestFetchScriptPins(t *testing.T) {
	b, err := os.ReadFile("../../scripts/fetch-claude.sh")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"CLAUDE_VERSION": Version, "CLAUDE_SHA256": BinarySHA256} {
		m := regexp.MustCompile(`(?m)^` + name + `=(\S+)$`).FindSubmatch(b)
		if m == nil || string(m[1]) != want {
			t.Errorf("scripts/fetch-claude.sh %s = %q, want %q", name, m, want)
		}
	}
	if !strings.Contains(string(b), "@anthropic-ai/claude-code-linux-x64") || !strings.HasSuffix(NPMPackage, "@"+Version) {
		t.Errorf("the script and NPMPackage %q name different packages", NPMPackage)
	}
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]string{
		"2.1.332 (Claude Code)\n": "2.1.332",
		"2.1.331 (Claude Code)":   "2.1.331",
		"":                        "",
		"codex-cli 0.171.0":       "",
	} {
		if got := parseVersion(in); got != want {
			t.Errorf("parseVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

// A missing binary and a binary of another program are refused with
// their named errors; the pinned one passes.
func TestCheckBinaryVersion(t *testing.T) {
	ctx := context.Background()
	if _, err := CheckBinary(ctx, ""); !errors.Is(err, ErrBinaryMissing) {
		t.Fatalf("no path: %v", err)
	}
	if _, err := CheckBinary(ctx, t.TempDir()+"/absent"); !errors.Is(err, ErrBinaryMissing) {
		t.Fatalf("absent: %v", err)
	}
	if _, err := CheckBinary(ctx, "/bin/echo"); !errors.Is(err, ErrWrongVersion) {
		t.Fatalf("another program: %v", err)
	}
	got, err := CheckBinary(ctx, realBinary(t))
	if err != nil || got != Version {
		t.Fatalf("CheckBinary = %q, %v", got, err)
	}
}

// Discovery: nothing without a binary; an unavailable kind with a
// diagnostic (no Executor factory) for a binary of another version; the
// Executor factory only for the pinned one. Every capability is decided
// either way.
func TestDeclarationDiscover(t *testing.T) {
	ctx := context.Background()
	if rt, err := Declaration(Options{}).Discover(ctx, nil, io.Discard); rt != nil || err != nil {
		t.Fatalf("unconfigured: %v, %v", rt, err)
	}
	var diag strings.Builder
	rt, err := Declaration(Options{Binary: "/bin/echo"}).Discover(ctx, nil, &diag)
	if err != nil || rt == nil || rt.Descriptor.Available || rt.Executors != nil || !strings.Contains(diag.String(), "unavailable") {
		t.Fatalf("wrong binary: %+v, %v, %q", rt, err, diag.String())
	}
	if err := rt.Descriptor.Capabilities.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := Declaration(Options{}).Validate(); err != nil {
		t.Fatal(err)
	}
	rt, err = Declaration(Options{Binary: realBinary(t)}).Discover(ctx, nil, io.Discard)
	if err != nil || !rt.Descriptor.Available || rt.Descriptor.Version != Version || rt.Executors == nil {
		t.Fatalf("pinned binary: %+v, %v", rt, err)
	}
}

// Every configuration the adapter cannot honour is refused before any
// native side effect, with its named error and a fixed reason.
func TestConfigurationRefusals(t *testing.T) {
	one := 1
	empty := []wire.MCPHTTPServer{}
	servers := []wire.MCPHTTPServer{{ConnectionOrigin: wire.OriginService, ServerLabel: "s", ServerURL: "https://s"}}
	opt := func(kv ...string) map[string]json.RawMessage {
		m := map[string]json.RawMessage{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = json.RawMessage(kv[i+1])
		}
		return m
	}
	rows := []struct {
		name string
		edit func(*agent.ExecutorConfig)
		want error
	}{
		{"blank session", func(c *agent.ExecutorConfig) { c.SessionID = "" }, agent.ErrInvalidConfiguration},
		{"another kind", func(c *agent.ExecutorConfig) { c.Configuration.AgentKind = "codex" }, agent.ErrInvalidConfiguration},
		{"local environment without workspace", func(c *agent.ExecutorConfig) {
			c.Configuration.LocalEnvironment = &wire.LocalEnvironment{ID: "e"}
		}, agent.ErrInvalidConfiguration},
		{"function tools", func(c *agent.ExecutorConfig) {
			c.Configuration.FunctionTools = []wire.FunctionTool{{Name: "f"}}
		}, agent.ErrUnsupportedOperation},
		{"tool search", func(c *agent.ExecutorConfig) { c.Configuration.ToolSearch = true }, agent.ErrUnsupportedOperation},
		{"mcp servers", func(c *agent.ExecutorConfig) { c.Configuration.MCPHTTPServers = &servers }, agent.ErrUnsupportedOperation},
		{"subagent identities", func(c *agent.ExecutorConfig) { c.Configuration.ObserveSubagentIdentities = true }, agent.ErrUnsupportedOperation},
		{"subagents", func(c *agent.ExecutorConfig) { c.Configuration.MaxConcurrentSubagents = &one }, agent.ErrUnsupportedOperation},
		{"workspace authoring", func(c *agent.ExecutorConfig) { c.Configuration.WorkspaceAuthoring = true }, agent.ErrUnsupportedOperation},
		{"message items", func(c *agent.ExecutorConfig) { c.Configuration.ObserveMessages = true }, agent.ErrUnsupportedOperation},
		{"programmatic tool calling", func(c *agent.ExecutorConfig) {
			c.Configuration.ExecutionControls.DisableProgrammaticToolCalling = true
		}, agent.ErrUnsupportedOperation},
		{"text verbosity", func(c *agent.ExecutorConfig) { c.Configuration.ExecutionControls.TextVerbosity = "low" }, agent.ErrUnsupportedOperation},
		{"structured output", func(c *agent.ExecutorConfig) {
			c.Configuration.ExecutionControls.OutputFormat = &wire.OutputFormat{Type: "json_schema", Schema: json.RawMessage(`{}`)}
		}, agent.ErrUnsupportedOperation},
		{"live web search", func(c *agent.ExecutorConfig) { c.Configuration.ExecutionControls.WebSearch = "live" }, agent.ErrUnsupportedOperation},
		{"model provider", func(c *agent.ExecutorConfig) {
			c.Configuration.AgentOptions = opt("model", `"m"`, "model_provider", `"p"`)
		}, agent.ErrUnsupportedOperation},
		{"native harness config", func(c *agent.ExecutorConfig) {
			c.Configuration.AgentOptions = opt("harness_config", `{"effort":"high"}`)
		}, agent.ErrUnsupportedOperation},
		{"null model", func(c *agent.ExecutorConfig) { c.Configuration.AgentOptions = opt("model", `null`) }, agent.ErrInvalidConfiguration},
		{"unknown option", func(c *agent.ExecutorConfig) { c.Configuration.AgentOptions = opt("temperature", `1`) }, agent.ErrUnsupportedConfiguration},
		{"required unrecorded session", func(c *agent.ExecutorConfig) { c.Configuration.RequireExistingNativeSession = true }, ErrResume},
	}
	h := New(Options{Binary: "/nonexistent/claude-must-not-start"})
	for _, row := range rows {
		cfg := testConfig()
		row.edit(&cfg)
		ex, err := h.NewExecutor(context.Background(), cfg)
		if ex != nil || !errors.Is(err, row.want) {
			t.Errorf("%s: NewExecutor = %v, %v; want %v", row.name, ex, err, row.want)
		}
	}
	// Accepted: an empty MCP list, an empty harness config, the default
	// verbosity, a model and a system prompt.
	cfg := testConfig()
	cfg.Configuration.MCPHTTPServers = &empty
	cfg.Configuration.ExecutionControls.TextVerbosity = "medium"
	cfg.Configuration.AgentOptions = opt("harness_config", `{}`, "model", `"claude-test"`, "system_prompt", `"be brief"`)
	nc, err := buildConfig(cfg)
	if err != nil || nc.model != "claude-test" || nc.instructions != "be brief" {
		t.Fatalf("accepted configuration: %+v, %v", nc, err)
	}
	args := strings.Join(nc.args("sid", false), " ")
	for _, want := range []string{"--session-id sid", "--model claude-test", "--append-system-prompt be brief",
		"--permission-prompt-tool stdio", "--permission-mode default", "--disallowedTools " + strings.Join(removedTools, ",")} {
		if !strings.Contains(args, want) {
			t.Errorf("args %q lack %q", args, want)
		}
	}
	if args := strings.Join(nc.args("sid", true), " "); !strings.Contains(args, "--resume sid") || strings.Contains(args, "--session-id") {
		t.Errorf("resume args %q", args)
	}
}

// A CLI that cannot start makes NewExecutor fail with
// ErrExecutorUnavailable and leaves no working directory behind.
func TestStartFailureIsUnavailable(t *testing.T) {
	dir := t.TempDir()
	h := New(Options{Binary: dir + "/absent", WorkDir: dir})
	if ex, err := h.NewExecutor(context.Background(), testConfig()); ex != nil || !errors.Is(err, agent.ErrExecutorUnavailable) {
		t.Fatalf("NewExecutor = %v, %v", ex, err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
}
