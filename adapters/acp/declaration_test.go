package acp

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
	"github.com/turnstile-sim/turnstile/adapters/claude/claudetest"
	"github.com/turnstile-sim/turnstile/wire"
)

// The fetch script and the Go constants pin the same agent version and
// entry point, and every pinned tarball has a SHA-256.
func TestFetchScriptPins(t *testing.T) {
	b, err := os.ReadFile("../../scripts/fetch-acp.sh")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"ACP_VERSION": AgentVersion, "ACP_PACKAGE": AgentPackage, "ACP_ENTRY": AgentEntry} {
		m := regexp.MustCompile(`(?m)^` + name + `=(\S+)$`).FindSubmatch(b)
		if m == nil || string(m[1]) != want {
			t.Errorf("scripts/fetch-acp.sh %s = %q, want %q", name, m, want)
		}
	}
	pins := regexp.MustCompile(`(?m)^  "(\S+) (\S+)@(\S+) ([0-9a-f]{64})"$`).FindAllSubmatch(b, -1)
	if len(pins) < 2 || string(pins[0][2]) != AgentPackage || string(pins[0][3]) != AgentVersion {
		t.Fatalf("pins %q: the agent first, every package with its SHA-256", pins)
	}
}

// Discovery: nothing without a command; an unavailable kind with a
// diagnostic (no Executor factory) for a command that is no ACP agent;
// the Executor factory with the agent's version and the narrowed
// capabilities for the pinned agent. Every capability is decided either
// way.
func TestDeclarationDiscover(t *testing.T) {
	ctx := context.Background()
	if rt, err := Declaration(Options{Profile: ClaudeAgentACP()}).Discover(ctx, nil, io.Discard); rt != nil || err != nil {
		t.Fatalf("unconfigured: %v, %v", rt, err)
	}
	for _, p := range Profiles() {
		if err := Declaration(Options{Profile: p}).Validate(); err != nil {
			t.Fatal(p.Name, err)
		}
		if got := Declaration(Options{Profile: p}).Kind; got != "acp:"+p.Name {
			t.Fatalf("kind %q", got)
		}
	}
	var diag strings.Builder
	rt, err := Declaration(Options{Profile: ClaudeAgentACP(), Command: []string{"/bin/cat"}, StartTimeout: 2e9}).Discover(ctx, nil, &diag)
	if err != nil || rt == nil || rt.Descriptor.Available || rt.Executors != nil || !strings.Contains(diag.String(), "unavailable") {
		t.Fatalf("no ACP agent: %+v, %v, %q", rt, err, diag.String())
	}
	if err := rt.Descriptor.Capabilities.Validate(); err != nil {
		t.Fatal(err)
	}
	opts := realOptions(t, claudetest.NewServer(t))
	rt, err = Declaration(opts).Discover(ctx, nil, io.Discard)
	if err != nil || !rt.Descriptor.Available || rt.Descriptor.Version != AgentVersion || rt.Executors == nil {
		t.Fatalf("pinned agent: %+v, %v", rt, err)
	}
	if rt.Descriptor.Capabilities != Capabilities(ClaudeAgentACP()) {
		t.Fatalf("the pinned agent does not advertise what the profile declares: %+v", rt.Descriptor.Capabilities)
	}
	// The mcode profile over claude-agent-acp: no mcode/session/steer is
	// advertised, so steering and durable input receipts are narrowed away.
	opts.Profile = MCode()
	rt, err = Declaration(opts).Discover(ctx, nil, io.Discard)
	if err != nil || !rt.Descriptor.Available || rt.Descriptor.Capabilities.Steering.IsSupported() ||
		rt.Descriptor.Capabilities.DurableInputReceipts.IsSupported() {
		t.Fatalf("mcode profile over another agent: %+v, %v", rt, err)
	}
}

// Every configuration the adapter cannot honour is refused before any
// native side effect, with its named error and a fixed reason.
func TestConfigurationRefusals(t *testing.T) {
	one := 1
	servers := []wire.MCPHTTPServer{{ConnectionOrigin: wire.OriginService, ServerLabel: "s", ServerURL: "https://s"}}
	opt := func(kv ...string) map[string]json.RawMessage {
		m := map[string]json.RawMessage{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = json.RawMessage(kv[i+1])
		}
		return m
	}
	rows := []struct {
		name    string
		profile Profile
		edit    func(*agent.ExecutorConfig)
		want    error
	}{
		{"blank session", ClaudeAgentACP(), func(c *agent.ExecutorConfig) { c.SessionID = "" }, agent.ErrInvalidConfiguration},
		{"another kind", ClaudeAgentACP(), func(c *agent.ExecutorConfig) { c.Configuration.AgentKind = "acp:mcode" }, agent.ErrInvalidConfiguration},
		{"local environment without workspace", ClaudeAgentACP(), func(c *agent.ExecutorConfig) {
			c.Configuration.LocalEnvironment = &wire.LocalEnvironment{ID: "e"}
		}, agent.ErrInvalidConfiguration},
		{"function tools", ClaudeAgentACP(), func(c *agent.ExecutorConfig) {
			c.Configuration.FunctionTools = []wire.FunctionTool{{Name: "f"}}
		}, agent.ErrUnsupportedOperation},
		{"tool search", ClaudeAgentACP(), func(c *agent.ExecutorConfig) { c.Configuration.ToolSearch = true }, agent.ErrUnsupportedOperation},
		{"mcp servers", ClaudeAgentACP(), func(c *agent.ExecutorConfig) { c.Configuration.MCPHTTPServers = &servers }, agent.ErrUnsupportedOperation},
		{"subagent identities", ClaudeAgentACP(), func(c *agent.ExecutorConfig) { c.Configuration.ObserveSubagentIdentities = true }, agent.ErrUnsupportedOperation},
		{"subagents", ClaudeAgentACP(), func(c *agent.ExecutorConfig) { c.Configuration.MaxConcurrentSubagents = &one }, agent.ErrUnsupportedOperation},
		{"workspace authoring", ClaudeAgentACP(), func(c *agent.ExecutorConfig) { c.Configuration.WorkspaceAuthoring = true }, agent.ErrUnsupportedOperation},
		{"message items", ClaudeAgentACP(), func(c *agent.ExecutorConfig) { c.Configuration.ObserveMessages = true }, agent.ErrUnsupportedOperation},
		{"programmatic tool calling", ClaudeAgentACP(), func(c *agent.ExecutorConfig) {
			c.Configuration.ExecutionControls.DisableProgrammaticToolCalling = true
		}, agent.ErrUnsupportedOperation},
		{"text verbosity", ClaudeAgentACP(), func(c *agent.ExecutorConfig) { c.Configuration.ExecutionControls.TextVerbosity = "low" }, agent.ErrUnsupportedOperation},
		{"structured output", ClaudeAgentACP(), func(c *agent.ExecutorConfig) {
			c.Configuration.ExecutionControls.OutputFormat = &wire.OutputFormat{Type: "json_schema", Schema: json.RawMessage(`{}`)}
		}, agent.ErrUnsupportedOperation},
		{"live web search", ClaudeAgentACP(), func(c *agent.ExecutorConfig) { c.Configuration.ExecutionControls.WebSearch = "live" }, agent.ErrUnsupportedOperation},
		{"mcode execution controls", MCode(), func(*agent.ExecutorConfig) {}, agent.ErrUnsupportedOperation},
		{"mcode subagent control", MCode(), func(c *agent.ExecutorConfig) { c.Configuration.ExecutionControls = nil }, agent.ErrUnsupportedOperation},
		{"mcode model", MCode(), func(c *agent.ExecutorConfig) {
			c.Configuration.ExecutionControls, c.Configuration.DisableSubagents = nil, false
			c.Configuration.AgentOptions = opt("model", `"m"`)
		}, agent.ErrUnsupportedOperation},
		{"model provider", ClaudeAgentACP(), func(c *agent.ExecutorConfig) {
			c.Configuration.AgentOptions = opt("model", `"m"`, "model_provider", `"p"`)
		}, agent.ErrUnsupportedConfiguration},
		{"system prompt", ClaudeAgentACP(), func(c *agent.ExecutorConfig) { c.Configuration.AgentOptions = opt("system_prompt", `"x"`) }, agent.ErrUnsupportedOperation},
		{"native harness config", ClaudeAgentACP(), func(c *agent.ExecutorConfig) {
			c.Configuration.AgentOptions = opt("harness_config", `{"effort":"high"}`)
		}, agent.ErrUnsupportedConfiguration},
		{"null model", ClaudeAgentACP(), func(c *agent.ExecutorConfig) { c.Configuration.AgentOptions = opt("model", `null`) }, agent.ErrInvalidConfiguration},
		{"unknown option", ClaudeAgentACP(), func(c *agent.ExecutorConfig) { c.Configuration.AgentOptions = opt("temperature", `1`) }, agent.ErrUnsupportedConfiguration},
		{"required unrecorded session", ClaudeAgentACP(), func(c *agent.ExecutorConfig) { c.Configuration.RequireExistingNativeSession = true }, ErrResume},
	}
	for _, row := range rows {
		h := New(Options{Profile: row.profile, Command: []string{"/nonexistent/acp-agent-must-not-start"}})
		cfg := testConfig(row.profile.Kind())
		row.edit(&cfg)
		ex, err := h.NewExecutor(context.Background(), cfg)
		if ex != nil || !errors.Is(err, row.want) {
			t.Errorf("%s: NewExecutor = %v, %v; want %v", row.name, ex, err, row.want)
		}
	}
	// Accepted: an empty system prompt, an empty harness config, the
	// default verbosity.
	cfg := testConfig(ProfileClaudeAgentACP)
	cfg.Configuration.AgentKind = ClaudeAgentACP().Kind()
	cfg.Configuration.ExecutionControls.TextVerbosity = "medium"
	cfg.Configuration.AgentOptions = opt("harness_config", `{}`, "system_prompt", `""`, "model", `"claude-test"`)
	if model, err := buildConfig(ClaudeAgentACP(), Capabilities(ClaudeAgentACP()), cfg); err != nil || model != "claude-test" {
		t.Fatalf("accepted configuration: %q, %v", model, err)
	}
}

// An agent that cannot start makes NewExecutor fail with
// ErrExecutorUnavailable and leaves no working directory behind.
func TestStartFailureIsUnavailable(t *testing.T) {
	dir := t.TempDir()
	h := New(Options{Profile: ClaudeAgentACP(), Command: []string{dir + "/absent"}, WorkDir: dir})
	if ex, err := h.NewExecutor(context.Background(), testConfig(h.Kind())); ex != nil || !errors.Is(err, agent.ErrExecutorUnavailable) {
		t.Fatalf("NewExecutor = %v, %v", ex, err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
}
