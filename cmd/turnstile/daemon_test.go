package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/daemon/transport/transporttest"
	"github.com/turnstile-sim/turnstile/wire"
)

const testCredential = "cmd-test-credential-0123456789"

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every configuration the daemon cannot start with is refused before any
// request, with exit code 2 and a message naming what to fix.
func TestDaemonRefusesToStart(t *testing.T) {
	cred := writeFile(t, "cred", testCredential+"\n")
	empty := writeFile(t, "empty", " \n")
	twoLines := writeFile(t, "two", "a\nb\n")
	badScript := writeFile(t, "script.json", `{"turns":[{"deltas":["a"],"interval":"soon"}]}`)
	unknownField := writeFile(t, "script2.json", `{"turns":[{"delta":["a"]}]}`)
	base := []string{"daemon", "-core", "http://127.0.0.1:1", "-device", "dev-1"}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no core", []string{"daemon", "-device", "d", "-credential-file", cred}, "-core is required"},
		{"no device", []string{"daemon", "-core", "http://x", "-credential-file", cred}, "-device is required"},
		{"no credential file", base, "-credential-file is required"},
		{"missing credential file", append(base, "-credential-file", filepath.Join(t.TempDir(), "nope")), "credential file"},
		{"empty credential", append(base, "-credential-file", empty), "is empty"},
		{"two-line credential", append(base, "-credential-file", twoLines), "more than one line"},
		{"core URL not http", []string{"daemon", "-core", "ftp://x", "-device", "d", "-credential-file", cred}, "Core URL must be"},
		{"second core URL not http", []string{"daemon", "-core", "http://a,ftp://x", "-device", "d", "-credential-file", cred}, "Core URL must be"},
		{"core URLs all blank", []string{"daemon", "-core", " , ", "-device", "d", "-credential-file", cred}, "-core is required"},
		{"unknown kind", append(base, "-credential-file", cred, "-kinds", "minimax"), `kinds: "minimax" is not a kind`},
		{"claude without a binary", append(base, "-credential-file", cred, "-kinds", "claude"), `kind "claude" is enabled but not configured`},
		{"acp without a command", append(base, "-credential-file", cred, "-kinds", "acp:claude-agent-acp"), `kind "acp:claude-agent-acp" is enabled but not configured`},
		{"unknown acp profile", append(base, "-credential-file", cred, "-kinds", "acp:gemini", "-acp-cmd", "x"), `kinds: "acp:gemini" is not a kind`},
		{"one acp command for two kinds", append(base, "-credential-file", cred, "-kinds", "acp:claude-agent-acp,acp:mcode", "-acp-cmd", "x"), "-acp-cmd runs one ACP agent"},
		{"codex without a binary", append(base, "-credential-file", cred, "-kinds", "codex"), `kind "codex" is enabled but not configured`},
		{"no kind", append(base, "-credential-file", cred, "-kinds", " , "), "no Harness kind enabled"},
		{"no Harness configured", append(base, "-credential-file", cred), "no Harness kind enabled: configure a real Harness"},
		{"acp command without its profile", append(base, "-credential-file", cred, "-acp-cmd", "x"), "enable it with -kinds acp:<profile>"},
		{"bad codex approval mode", append(base, "-credential-file", cred, "-codex-approvals", "always"), `-codex-approvals: codex: approval mode "always"`},
		{"bad log level", append(base, "-credential-file", cred, "-log-level", "loud"), "-log-level"},
		{"bad script duration", append(base, "-credential-file", cred, "-synthetic-script", badScript), "turns[0].interval"},
		{"unknown script field", append(base, "-credential-file", cred, "-synthetic-script", unknownField), `unknown field "delta"`},
		{"stray argument", append(base, "-credential-file", cred, "extra"), "unexpected arguments"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := (cli{t: t}).run(c.args...)
			if code != exitUsage || !strings.Contains(errOut, c.want) {
				t.Fatalf("exit %d, stderr %q; want %d naming %q", code, errOut, exitUsage, c.want)
			}
			if strings.Contains(errOut, testCredential) {
				t.Fatalf("stderr holds the credential: %q", errOut)
			}
		})
	}
}

// TestDaemonTakesSeveralCoreURLs: -core repeated and comma-separated
// lists the Cores of an active–standby pair, in order, replacing
// TURNSTILE_CORE_URL (itself comma-separated when no -core is given).
func TestDaemonTakesSeveralCoreURLs(t *testing.T) {
	cred := writeFile(t, "cred", testCredential+"\n")
	t.Setenv("TURNSTILE_CORE_URL", "http://env-a:1, http://env-b:1")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"http://env-a:1", "http://env-b:1"}},
		{[]string{"-core", "http://a:1,http://b:1", "-core", "http://c:1"}, []string{"http://a:1", "http://b:1", "http://c:1"}},
		{[]string{"-core", "http://a:1"}, nil},
	} {
		sh := &shell{stdout: io.Discard, stderr: io.Discard}
		fs, f := sh.daemonFlagSet()
		if err := fs.Parse(append(c.args, "-device", "d", "-credential-file", cred, "-kinds", "synthetic")); err != nil {
			t.Fatal(err)
		}
		setup, err := prepareDaemon(f, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(setup.client.CoreURLs, c.want) || (c.want != nil && setup.client.CoreURL != c.want[0]) ||
			(c.want == nil && setup.client.CoreURL != "http://a:1") {
			t.Fatalf("%v: CoreURL %q, CoreURLs %q; want %q", c.args, setup.client.CoreURL, setup.client.CoreURLs, c.want)
		}
	}
}

func TestDaemonEnvironmentSuppliesFlags(t *testing.T) {
	cred := writeFile(t, "cred", testCredential)
	t.Setenv("TURNSTILE_CORE_URL", "http://127.0.0.1:1")
	t.Setenv("TURNSTILE_DEVICE_ID", "dev-env")
	t.Setenv("TURNSTILE_CREDENTIAL_FILE", cred)
	t.Setenv("TURNSTILE_KINDS", "nonesuch")
	code, _, errOut := (cli{t: t}).run("daemon")
	if code != exitUsage || !strings.Contains(errOut, `"nonesuch" is not a kind`) {
		t.Fatalf("exit %d, %q: TURNSTILE_KINDS was not read", code, errOut)
	}
	code, _, errOut = (cli{t: t}).run("daemon", "-kinds", "synthetic", "-log-level", "shout")
	if code != exitUsage || !strings.Contains(errOut, "-log-level") {
		t.Fatalf("exit %d, %q: a flag must win over the environment", code, errOut)
	}
}

func TestDaemonLoggerRedacts(t *testing.T) {
	var b bytes.Buffer
	log := newDaemonLogger(&b, slog.LevelDebug, testCredential)
	log.Info("dialing with "+testCredential, "credential", "x", "Authorization", "Bearer y",
		"url", "http://core/?q="+testCredential, "err", os.ErrNotExist, "wrapped", strings.NewReader(testCredential))
	log.Info("plain", slog.Group("g", "token", "z", "note", "has "+testCredential))
	out := b.String()
	for _, secret := range []string{testCredential, "Bearer y", "token=z"} {
		if strings.Contains(out, secret) {
			t.Fatalf("log holds %q:\n%s", secret, out)
		}
	}
	if strings.Count(out, daemonRedacted) < 6 || !strings.Contains(out, "file does not exist") {
		t.Fatalf("log lost its content or did not redact:\n%s", out)
	}
}

func TestSyntheticScriptParses(t *testing.T) {
	sc, err := parseSyntheticScript([]byte(`{"fail_closes":1,"turns":[
		{"deltas":["Hello, ","world"],"interval":"300ms","usage":{"input_tokens":3}},
		{"hold":true,"cancel_latency":"2s","steer_apply_latency":"1s","error":{"error":"boom","code":"server_error"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	scripts, fails := sc.turns, sc.failCloses
	if fails != 1 || sc.ext != (synthetic.Extensions{}) || len(scripts) != 2 || scripts[0].EventInterval != 300*time.Millisecond ||
		strings.Join(scripts[0].Deltas, "") != "Hello, world" || *scripts[0].Usage.InputTokens != 3 ||
		!scripts[1].Hold || scripts[1].CancelLatency != 2*time.Second || scripts[1].Error.Code != "server_error" {
		t.Fatalf("parsed %+v", scripts)
	}
	for _, bad := range []struct{ doc, want string }{
		{`{"turns":[{"cancel_latency":"-1s"}]}`, "turns[0].cancel_latency"},
		{`{"turns":[{"error":{"error":""}}]}`, "turns[0].error"},
		{`{"fail_closes":-1}`, "fail_closes"},
		{`{"turns":[]} {}`, "trailing data"},
		{`[]`, "synthetic script"},
		{`{"extensions":{"permission":true}}`, `unknown field "permission"`},
		{`{"turns":[{"asks":[{"type":"question"}]}]}`, "turns[0].asks[0]: type"},
		{`{"turns":[{"asks":[{"type":"permission_request","tool":"shell","title":"t"}]}]}`, "turns[0].asks[0]"},
		{`{"turns":[{"asks":[{"type":"permission_request","request_id":"p","tool":"shell","title":"t","call_id":"c"}]}]}`, "has no call_id"},
		{`{"turns":[{"asks":[{"type":"function_call","name":"f"}]}]}`, "turns[0].asks[0]"},
		{`{"turns":[{"asks":[{"type":"function_call","call_id":"c","name":"f","title":"t"}]}]}`, "has no request_id"},
	} {
		if _, err := parseSyntheticScript([]byte(bad.doc)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Fatalf("%s: %v, want an error naming %q", bad.doc, err, bad.want)
		}
	}
}

// Extensions and asks: a permission request and a function call, in order.
func TestSyntheticScriptParsesAsks(t *testing.T) {
	sc, err := parseSyntheticScript([]byte(`{"extensions":{"permissions":true,"function_tools":true},"turns":[
		{"deltas":["checking"],"asks":[
			{"type":"permission_request","request_id":"perm-1","tool":"shell","title":"Run ls","detail":"ls -l"},
			{"type":"function_call","call_id":"call-1","name":"lookup","arguments":{"q":"x"}},
			{"type":"function_call","call_id":"call-2","name":"noargs"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if sc.ext != (synthetic.Extensions{Permissions: true, FunctionTools: true}) || len(sc.turns) != 1 || len(sc.turns[0].Asks) != 3 {
		t.Fatalf("parsed %+v", sc)
	}
	perm, ok := sc.turns[0].Asks[0].(wire.PermissionRequest)
	if !ok || perm.RequestID != "perm-1" || perm.Tool != "shell" || perm.Title != "Run ls" || perm.Detail != "ls -l" || perm.Payload != nil {
		t.Fatalf("asks[0] %#v", sc.turns[0].Asks[0])
	}
	call, ok := sc.turns[0].Asks[1].(wire.FunctionCall)
	if !ok || call.CallID != "call-1" || call.Name != "lookup" || string(call.Arguments) != `{"q":"x"}` {
		t.Fatalf("asks[1] %#v", sc.turns[0].Asks[1])
	}
	if call, ok := sc.turns[0].Asks[2].(wire.FunctionCall); !ok || string(call.Arguments) != `{}` {
		t.Fatalf("asks[2] %#v: arguments default to {}", sc.turns[0].Asks[2])
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// The command against a scripted Core on a loopback listener: it
// bootstraps, connects, heartbeats with the synthetic kind, runs a scripted
// Turn, and a device_shutdown ends it with exit code 0; its log never holds
// the credential.
func TestDaemonCommandRunsUntilDeviceShutdown(t *testing.T) {
	core := &transporttest.Core{DeviceID: "dev-1", Credential: testCredential}
	srv := httptest.NewServer(core.Handler())
	defer srv.Close()
	defer core.Close()
	cred := writeFile(t, "cred", testCredential+"\n")
	script := writeFile(t, "script.json", `{"turns":[{"deltas":["Hello, ","world"]}]}`)
	var out, errOut lockedBuffer
	code := make(chan int, 1)
	go func() {
		code <- newShell(&out, &errOut).main([]string{"daemon", "-core", srv.URL, "-device", "dev-1",
			"-credential-file", cred, "-kinds", "synthetic", "-synthetic-script", script, "-log-level", "debug"})
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := core.Next(ctx)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	hb, err := s.Expect(ctx, wire.TypeHeartbeat)
	if err != nil {
		t.Fatal(err)
	}
	kinds := hb.Payload.(wire.Heartbeat).SupportedAgentKinds
	if len(kinds) != 1 || kinds[0].Kind != "synthetic" {
		t.Fatalf("heartbeat kinds %+v", kinds)
	}
	runScriptedTurn(t, ctx, s)
	if err := s.Send(ctx, wire.Frame{Payload: wire.DeviceShutdown{}}); err != nil {
		t.Fatal(err)
	}
	if c := <-code; c != exitOK {
		t.Fatalf("exit %d\n%s", c, errOut.String())
	}
	if log := errOut.String(); strings.Contains(log, testCredential) || !strings.Contains(log, "everything released") {
		t.Fatalf("log:\n%s", log)
	}
	for _, u := range core.RequestURLs() {
		if strings.Contains(u, testCredential) {
			t.Fatalf("credential in URL %s", u)
		}
	}
}

func runScriptedTurn(t *testing.T, ctx context.Context, s *transporttest.Session) {
	t.Helper()
	send := func(id string, p wire.Payload) {
		if err := s.Send(ctx, wire.Frame{ID: id, Payload: p}); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(typ string) wire.Frame {
		f, err := s.Expect(ctx, typ)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	send("prep-1", wire.ExecutionPrepare{SessionID: "s1", Configuration: wire.ExecutionConfiguration{
		AgentKind: "synthetic", AgentStateKey: "agents-api-s1", StrictResume: true, DisableExecutionEnvironment: true}})
	expect(wire.TypePreparationStatus)
	st := expect(wire.TypePreparationStatus).Payload.(wire.PreparationStatus)
	if st.State != wire.StateReady {
		t.Fatalf("status %+v", st)
	}
	send("prep-1", wire.ExecutionStart{ExecutorID: st.ExecutorID, Handle: st.Handle, RunID: "run-1", Input: wire.TextInput("hi")})
	expect(wire.TypePreparationStatus)
	expect(wire.TypePreparationStatus)
	var text string
	for {
		f, err := s.Recv(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := f.Payload.(wire.Delta); ok {
			text += d.Delta
		}
		if d, ok := f.Payload.(wire.Done); ok {
			if d.Content != "Hello, world" || text != "Hello, world" {
				t.Fatalf("streamed %q, done %q", text, d.Content)
			}
			return
		}
	}
}

// A credential Core refuses ends the command with exit code 1 and a
// message saying what to fix, without retrying and without the secret.
func TestDaemonCommandExitsOnRefusedCredential(t *testing.T) {
	core := &transporttest.Core{DeviceID: "dev-1", Credential: "the one Core knows"}
	srv := httptest.NewServer(core.Handler())
	defer srv.Close()
	defer core.Close()
	cred := writeFile(t, "cred", testCredential+"\n")
	code, _, errOut := (cli{t: t}).run("daemon", "-core", srv.URL, "-device", "dev-1", "-credential-file", cred, "-kinds", "synthetic")
	if code != exitFail || !strings.Contains(errOut, "HTTP 401") || !strings.Contains(errOut, "check the device ID and the credential file") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if strings.Contains(errOut, testCredential) {
		t.Fatalf("stderr holds the credential:\n%s", errOut)
	}
	if core.Bootstraps() != 1 || core.Dials() != 0 {
		t.Fatalf("%d bootstraps, %d dials: a refused credential must not be retried", core.Bootstraps(), core.Dials())
	}
}

// TestDaemonDefaultKinds: without -kinds the daemon enables the real
// Harnesses configured, never the synthetic test fixture, which runs only
// when listed.
func TestDaemonDefaultKinds(t *testing.T) {
	for _, c := range []struct {
		f    daemonFlags
		want []string
		err  error
	}{
		{daemonFlags{}, nil, errNoKinds},
		{daemonFlags{codexBin: "/bin/codex"}, []string{"codex"}, nil},
		{daemonFlags{claudeBin: "/bin/claude"}, []string{"claude"}, nil},
		{daemonFlags{codexBin: "/bin/codex", claudeBin: "/bin/claude"}, []string{"codex", "claude"}, nil},
		{daemonFlags{acpCmd: "mcode acp"}, nil, errACPProfile},
		{daemonFlags{kinds: "synthetic"}, []string{"synthetic"}, nil},
		{daemonFlags{kinds: " , ", codexBin: "/bin/codex"}, nil, errNoKinds},
		{daemonFlags{kinds: " synthetic , codex", codexBin: "/bin/codex"}, []string{"synthetic", "codex"}, nil},
		{daemonFlags{kinds: "acp:mcode", acpCmd: "mcode acp"}, []string{"acp:mcode"}, nil},
	} {
		got, err := daemonKinds(&c.f)
		if !errors.Is(err, c.err) || !slices.Equal(got, c.want) {
			t.Errorf("%+v: kinds %v, err %v; want %v, %v", c.f, got, err, c.want, c.err)
		}
	}
}
