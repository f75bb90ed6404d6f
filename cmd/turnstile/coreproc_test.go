package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	coreapi "github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/core/store/pgstore"
	"github.com/turnstile-sim/turnstile/core/store/pgstore/pgtest"
	"github.com/turnstile-sim/turnstile/scenarios"
)

// childArgsEnv makes the test binary run one turnstile command line (a JSON
// array) instead of the tests: real child processes of the real command.
const childArgsEnv = "TURNSTILE_TEST_CHILD_ARGS"

func TestMain(m *testing.M) {
	if raw, ok := os.LookupEnv(childArgsEnv); ok {
		var args []string
		if err := json.Unmarshal([]byte(raw), &args); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(exitUsage)
		}
		os.Exit(run(args, os.Stdout, os.Stderr))
	}
	dir, err := os.MkdirTemp("", "turnstile-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(exitFail)
	}
	contractProfileFile = filepath.Join(dir, "contract-profile.json")
	if err := os.WriteFile(contractProfileFile, scenarios.ContractProfile(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(exitFail)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// contractProfileFile holds the scenarios' contract kind's engine profile
// (turnstile conform profile), for the Cores the tests start.
var contractProfileFile string

// testCoreKinds are the kinds the Cores the tests start enable unless a
// test passes -kinds: every built-in kind (the synthetic test fixture
// among them) and the scenarios' contract kind.
func testCoreKinds() []string {
	return []string{"-kinds", strings.Join(append(engine.Builtin().Kinds(), scenarios.ContractKind, scenarios.ContractNoImagesKind), ","),
		"-engine-profiles", contractProfileFile}
}

// syncBuffer collects a child's stderr.
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed (and replaced) by every Write
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return s.b.Write(p)
}

// next returns the text so far and a channel closed by the next Write.
func (s *syncBuffer) next() (string, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return s.b.String(), s.changed
}

// wait returns after the next Write, or after a second without one (a
// Write between the caller's check and this call is not missed for
// longer).
func (s *syncBuffer) wait() {
	_, ch := s.next()
	select {
	case <-ch:
	case <-time.After(time.Second):
	}
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// coreProc is a `turnstile core` child process on a loopback port.
type coreProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stderr *syncBuffer
	base   string
	exited chan struct{} // closed once the process has been waited for
	code   int           // exit code, valid after exited
}

// alive reports whether the process has not been reaped yet.
func (p *coreProc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// storeFlag is the flag naming the store loc: -store for a PostgreSQL URL,
// -data for a data directory.
func storeFlag(loc string) string {
	if pgstore.IsDSN(loc) {
		return "-store"
	}
	return "-data"
}

// startCore starts `turnstile core` on dir (a data directory, or a
// PostgreSQL URL) and waits for its listening line.
func startCore(t *testing.T, dir, tokenFile string, extra ...string) *coreProc {
	t.Helper()
	p, err := startCoreProc(dir, tokenFile, extra...)
	if err != nil {
		t.Fatal(err)
	}
	p.t = t
	t.Cleanup(p.stop)
	return p
}

// startCoreProc is startCore without a test: it reports failures as
// errors, so any goroutine may call it. The caller stops the process.
func startCoreProc(dir, tokenFile string, extra ...string) (*coreProc, error) {
	return startCoreProcUntil(msgListening, dir, tokenFile, extra...)
}

// The log messages of turnstile core that carry its address.
const (
	msgListening = "turnstile core listening" // serving (the active Core)
	msgStandby   = "turnstile core standby"   // waiting for the lease
)

// startCoreProcUntil is startCoreProc waiting for the log message msg
// (msgListening or msgStandby) instead of msgListening.
func startCoreProcUntil(msg, dir, tokenFile string, extra ...string) (*coreProc, error) {
	args := append([]string{"core", storeFlag(dir), dir, "-listen", "127.0.0.1:0", "-operator-token-file", tokenFile}, extra...)
	if !slices.Contains(extra, "-kinds") {
		args = append(args, testCoreKinds()...)
	}
	return startCoreArgs(msg, args)
}

// startCoreArgs runs the turnstile command line args (a core command)
// with env added to the test's environment, and waits for the log
// message msg that carries its address.
func startCoreArgs(msg string, args []string, env ...string) (*coreProc, error) {
	raw, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), env...), childArgsEnv+"="+string(raw))
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &coreProc{cmd: cmd, stderr: &syncBuffer{}, exited: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			p.stderr.Write([]byte(line + "\n"))
			var rec struct {
				Msg, Addr string
				TLS       bool
			}
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == msg {
				scheme := "http://"
				if rec.TLS {
					scheme = "https://"
				}
				select {
				case addr <- scheme + rec.Addr:
				default:
				}
			}
		}
		_ = cmd.Wait()
		p.code = cmd.ProcessState.ExitCode()
		close(p.exited)
	}()
	select {
	case a := <-addr:
		p.base = a
		return p, nil
	case <-p.exited:
		return nil, fmt.Errorf("turnstile core exited (%d) before listening:\n%s", p.code, p.stderr.String())
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-p.exited
		return nil, fmt.Errorf("turnstile core never listened:\n%s", p.stderr.String())
	}
}

// await waits up to d for a log line holding text and reports whether
// one came (false: the process exited or d passed).
func (p *coreProc) await(text string, d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		out, changed := p.stderr.next()
		if strings.Contains(out, text) {
			return true
		}
		select {
		case <-changed:
		case <-p.exited:
			return strings.Contains(p.stderr.String(), text)
		case <-deadline.C:
			return false
		}
	}
}

// stop kills the process unless it has ended.
func (p *coreProc) stop() {
	if p.alive() {
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// kill sends SIGKILL and waits for the process to end.
func (p *coreProc) kill() {
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// terminate sends SIGTERM and returns the exit code.
func (p *coreProc) terminate() int {
	p.t.Helper()
	code, err := p.signalStop()
	if err != nil {
		p.t.Fatal(err)
	}
	return code
}

// signalStop is terminate without a test: it sends SIGTERM, waits for the
// exit and returns its code.
func (p *coreProc) signalStop() (int, error) {
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return 0, err
	}
	select {
	case <-p.exited:
		return p.code, nil
	case <-time.After(30 * time.Second):
		return 0, fmt.Errorf("no exit after the signal:\n%s", p.stderr.String())
	}
}

func (p *coreProc) wsURL() string {
	return "ws" + strings.TrimPrefix(p.base, "http") + "/api/v1/agent-daemon/ws"
}

// client is an HTTP client of Core that records every body it receives
// (for the secret checks): /v1 calls carry its API key, every other call
// its operator token.
type client struct {
	t      *testing.T
	base   string
	token  string
	key    string
	hc     *http.Client
	mu     sync.Mutex
	bodies []string
}

func newClient(t *testing.T, base, token string) *client {
	return &client{t: t, base: base, token: token, key: token, hc: &http.Client{Timeout: 30 * time.Second}}
}

// newAPIClient is newClient with an API key issued by `turnstile core key
// add` on dir for the /v1 calls.
func newAPIClient(t *testing.T, base, dir, token string) *client {
	t.Helper()
	c := newClient(t, base, token)
	c.key = issueKey(t, dir)
	return c
}

// issueKey issues an API key with `turnstile core key add` on dir.
func issueKey(t *testing.T, dir string) string {
	t.Helper()
	code, out, errOut := cliKey(t, dir, "add", "e2e")
	if code != exitOK {
		t.Fatalf("key add: %d %s", code, errOut)
	}
	return strings.TrimSpace(out)
}

// bearer is the secret a call of path carries.
func (c *client) bearer(path string) string {
	if strings.HasPrefix(path, "/v1/") {
		return c.key
	}
	return c.token
}

// createSession creates a Session through /v1 and returns its ID.
func (c *client) createSession(body string) string {
	c.t.Helper()
	return jsonField(c.must("POST", "/v1/agents/sessions", body, 200), "id")
}

// session creates a Session of harness kind without an environment.
func (c *client) session(kind, model string) string {
	c.t.Helper()
	return c.createSession(`{"agent":{"model":"` + model + `","x_agents_core":{"harness":"` + kind + `"}},"environment":{"type":"none"}}`)
}

// send posts one input event to Session sid and returns its receipt.
func (c *client) send(sid, event string, header ...string) map[string]any {
	c.t.Helper()
	var r struct {
		Receipts []map[string]any `json:"receipts"`
	}
	b := c.must("POST", "/v1/agents/sessions/"+sid+"/events", `{"events":[`+event+`]}`, 200, header...)
	if err := json.Unmarshal([]byte(b), &r); err != nil || len(r.Receipts) != 1 {
		c.t.Fatalf("events receipt %s", b)
	}
	return r.Receipts[0]
}

// messageEvent is a /v1 message input event of text.
func messageEvent(text string) string {
	b, _ := json.Marshal(map[string]any{"type": "agent.session.input.message", "input": text})
	return string(b)
}

// submit starts a Turn in the idle Session sid and returns its ID.
func (c *client) submit(sid, text string, header ...string) string {
	c.t.Helper()
	r := c.send(sid, messageEvent(text), header...)
	if r["action"] != "turn_started" {
		c.t.Fatalf("submit: %v", r)
	}
	return r["turn_id"].(string)
}

// steer sends text while Session sid's Turn runs.
func (c *client) steer(sid, text string) {
	c.t.Helper()
	if r := c.send(sid, messageEvent(text)); r["action"] != "steered" {
		c.t.Fatalf("steer: %v", r)
	}
}

// cancel sends the cancel event for Session sid's unfinished Turn.
func (c *client) cancel(sid string) {
	c.t.Helper()
	c.send(sid, `{"type":"agent.session.input.cancel"}`)
}

// do sends a request; err is a transport error (a killed Core).
func (c *client) do(method, path, body string, header ...string) (int, string, http.Header, error) {
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		return 0, "", nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.bearer(path))
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	c.mu.Lock()
	c.bodies = append(c.bodies, string(b))
	c.mu.Unlock()
	return resp.StatusCode, string(b), resp.Header, err
}

func (c *client) must(method, path, body string, want int, header ...string) string {
	c.t.Helper()
	st, b, _, err := c.do(method, path, body, header...)
	if err != nil || st != want {
		c.t.Fatalf("%s %s: %d %s %v, want %d", method, path, st, b, err, want)
	}
	return b
}

// sseEvent is one Server-Sent Event.
type sseEvent struct{ ID, Event, Data string }

// events reads a Turn's run events from its Session's /v1 stream, from
// the Turn's start or after lastID: output text deltas, errors and the
// Turn's terminal event, where it stops; err when the stream broke (a
// killed Core) before.
func (c *client) events(turn string, lastID string) ([]sseEvent, error) {
	st, b, _, err := c.do("GET", "/core/v1/turns/"+turn, "")
	if err != nil {
		return nil, err
	}
	sid := jsonField(b, "session_id")
	if st != 200 || sid == "" {
		return nil, fmt.Errorf("turn %s: %d %s", turn, st, b)
	}
	if lastID == "" {
		lastID = turn + ":0:0:0:0"
	}
	req, _ := http.NewRequest("GET", c.base+"/v1/agents/sessions/"+sid+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Last-Event-ID", lastID)
	resp, err := (&http.Client{Transport: c.hc.Transport}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("events: %d %s", resp.StatusCode, b)
	}
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			var d struct {
				TurnID string `json:"turn_id"`
			}
			_ = json.Unmarshal([]byte(cur.Data), &d)
			if (cur.Event == coreapi.EvOutputTextDelta && d.TurnID == turn) || cur.Event == coreapi.EvError || (turnEnd(cur.Event) && d.TurnID == turn) {
				out = append(out, cur)
			}
			if turnEnd(cur.Event) && d.TurnID == turn {
				return out, nil
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			cur.ID = line[4:]
		case strings.HasPrefix(line, "event: "):
			cur.Event = line[7:]
		case strings.HasPrefix(line, "data: "):
			cur.Data = line[6:]
		}
	}
	if err := sc.Err(); err != nil {
		return out, err
	}
	return out, io.ErrUnexpectedEOF
}

// turn is Core's operator view of a Turn.
func (c *client) turn(tid string) coreapi.TurnJSON {
	c.t.Helper()
	var out coreapi.TurnJSON
	if err := json.Unmarshal([]byte(c.must("GET", "/core/v1/turns/"+tid, "", 200)), &out); err != nil {
		c.t.Fatal(err)
	}
	return out
}

// jsonField extracts a string member of a JSON object.
func jsonField(body, name string) string {
	var m map[string]any
	_ = json.Unmarshal([]byte(body), &m)
	s, _ := m[name].(string)
	return s
}

// cliDevice runs `turnstile core device ...` in-process.
func cliDevice(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(append([]string{"core", "device"}, append(args, storeFlag(dir), dir)...), &out, &errOut)
	return code, out.String(), errOut.String()
}

// setup makes a data directory with device d1 and an operator token file.
func setup(t *testing.T) (dir, tokenFile, token, cred string) {
	t.Helper()
	return setupAt(t, filepath.Join(t.TempDir(), "data"))
}

// setupPG is setup on a PostgreSQL schema of the test's own: dsn is its
// URL.
func setupPG(t *testing.T) (dsn, tokenFile, token, cred string) {
	t.Helper()
	dsn = pgtest.Schema(t)
	if !pgstore.IsDSN(dsn) {
		t.Fatalf("%s must be a postgres:// URL for -store", pgtest.EnvDSN)
	}
	return setupAt(t, dsn)
}

// setupAt makes the store at dir (a data directory or a PostgreSQL URL)
// with device d1, and an operator token file.
func setupAt(t *testing.T, dir string) (_, tokenFile, token, cred string) {
	t.Helper()
	root := t.TempDir()
	token = "op_TOKEN-" + fmt.Sprint(time.Now().UnixNano())
	tokenFile = filepath.Join(root, "operator.token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := cliDevice(t, dir, "add", "d1")
	if code != 0 {
		t.Fatalf("device add: %d %s", code, errOut)
	}
	return dir, tokenFile, token, strings.TrimSpace(out)
}

// daemon dials Core as d1 with rt and serves until the connection ends.
func daemon(t *testing.T, p *coreProc, cred string, rt *scripted.Runtime) (*scripted.Client, chan error) {
	t.Helper()
	ctx := context.Background()
	boot, err := scripted.DoBootstrap(ctx, http.DefaultClient, p.base, "d1", cred)
	if err != nil {
		t.Fatal(err)
	}
	c, err := scripted.Dial(ctx, http.DefaultClient, boot.WSURL, "d1", cred, rt)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Serve(ctx) }()
	return c, done
}
