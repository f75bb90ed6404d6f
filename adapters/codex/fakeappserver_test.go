package codex

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The fake app-server is this test binary re-executed with fakeEnv set to
// a directory: it speaks the app-server protocol on stdio, appends every
// input it applies to dir/effects and takes the behaviour of each turn
// from dir/mode (consumed by the turn that reads it; default echo).
const fakeEnv = "TURNSTILE_FAKE_CODEX_DIR"

// Fake turn behaviours.
const (
	fakeEcho        = "echo"         // echo the input as one delta and complete
	fakeHold        = "hold"         // stream one delta, apply steers, complete interrupted on interrupt
	fakeCrash       = "crash"        // exit in the middle of the turn
	fakeDeafCancel  = "deaf-cancel"  // hold and never answer the interrupt
	fakeNoEcho      = "no-echo"      // hold; queue steers without the userMessage echo
	fakeApproval    = "approval"     // ask for a command approval, stream the decision
	fakeAsk         = "ask"          // ask for a command and a file change approval, then hold
	fakeRetry       = "retry"        // report a retried connection error, then hold
	fakeLate        = "late"         // hold; after the interrupted completion, a late delta
	fakeRefuseStart = "refuse-start" // answer turn/start with an error
	fakeDieOnStart  = "die-on-start" // exit on turn/start without answering
	fakeSlowApply   = "slow-apply"   // hold; echo each steer only after fakeLatency
	fakeSlowCancel  = "slow-cancel"  // hold; complete interrupted only after fakeLatency
	// fakeLateDone + marker: echo and complete, then a delta carrying
	// marker for the completed turn.
	fakeLateDone = "late-done:"
)

// fakeLatency is the native delay of the slow modes; the contract
// fixtures' Window is shorter.
const fakeLatency = time.Second

func TestMain(m *testing.M) {
	if len(os.Args) == 2 && os.Args[1] == "--version" { // CheckBinary of the fake
		fmt.Println("codex-cli " + Version)
		os.Exit(0)
	}
	if dir := os.Getenv(fakeEnv); dir != "" {
		os.Exit(runFakeAppServer(dir))
	}
	os.Exit(m.Run())
}

type fakeServer struct {
	dir    string
	out    *json.Encoder
	mu     sync.Mutex
	thread string
	turns  int
	active string // held turn ID
	mode   string
	echo   bool
}

func runFakeAppServer(dir string) int { return serveFake(dir, os.Stdin, os.Stdout) }

// serveFake answers the app-server protocol read from in on out until in
// ends or a mode exits; it returns the exit code.
func serveFake(dir string, in io.Reader, out io.Writer) int {
	s := &fakeServer{dir: dir, out: json.NewEncoder(out)}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m rpcMessage
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		if code, exit := s.serve(m); exit {
			return code
		}
	}
	return 0
}

func (s *fakeServer) send(v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.out.Encode(v)
}

func (s *fakeServer) answer(id json.RawMessage, result any) {
	s.send(map[string]any{"id": id, "result": result})
}

func (s *fakeServer) notify(method string, params map[string]any) {
	params["threadId"] = s.thread
	s.send(map[string]any{"method": method, "params": params})
}

func (s *fakeServer) effect(text string) {
	f, err := os.OpenFile(filepath.Join(s.dir, "effects"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err == nil {
		fmt.Fprintln(f, text)
		_ = f.Close()
	}
}

// takeMode reads and removes dir/mode.
func (s *fakeServer) takeMode() string {
	p := filepath.Join(s.dir, "mode")
	b, err := os.ReadFile(p)
	if err != nil {
		return fakeEcho
	}
	_ = os.Remove(p)
	return strings.TrimSpace(string(b))
}

func (s *fakeServer) serve(m rpcMessage) (int, bool) {
	switch m.Method {
	case methodInitialize:
		s.answer(m.ID, map[string]any{"userAgent": "fake"})
	case methodThreadStart:
		var p threadStartParams
		_ = json.Unmarshal(m.Params, &p)
		_ = os.WriteFile(filepath.Join(s.dir, "policy"), []byte(p.ApprovalPolicy+" "+p.Sandbox), 0o600)
		s.thread = "thread-fake-1"
		s.answer(m.ID, s.applied(p.ApprovalPolicy, p.Sandbox))
	case methodThreadResume:
		var p threadResumeParams
		_ = json.Unmarshal(m.Params, &p)
		if p.ThreadID != "thread-fake-recorded" {
			s.send(map[string]any{"id": m.ID, "error": map[string]any{"code": -32600, "message": "no rollout found for thread id"}})
			return 0, false
		}
		s.thread = p.ThreadID
		s.answer(m.ID, s.applied(p.ApprovalPolicy, p.Sandbox))
	case methodTurnStart:
		return s.startTurn(m)
	case methodTurnSteer:
		s.steer(m)
	case methodTurnInterrupt:
		s.interrupt(m)
	case "":
		if len(m.ID) > 0 && s.mode == fakeApproval { // the approval's answer
			var d struct{ Decision string }
			_ = json.Unmarshal(m.Result, &d)
			s.delta("decision:" + d.Decision)
			s.complete("completed")
		}
		if len(m.ID) > 0 && s.mode == fakeAsk { // one of the asks' answers
			var d struct{ Decision string }
			_ = json.Unmarshal(m.Result, &d)
			s.effect("answer " + string(m.ID) + " " + d.Decision)
			s.delta("answered")
		}
	}
	return 0, false
}

// appliedTags are the SandboxPolicy tags of the sandbox modes.
var appliedTags = map[string]string{"danger-full-access": "dangerFullAccess", "workspace-write": "workspaceWrite", "read-only": "readOnly"}

// applied is the thread/start or thread/resume answer: the thread and the
// policy applied, the one asked for unless dir/applied names a sandbox
// tag to report instead (as a managed requirements file would impose).
func (s *fakeServer) applied(approval, sandbox string) map[string]any {
	tag := appliedTags[sandbox]
	if b, err := os.ReadFile(filepath.Join(s.dir, "applied")); err == nil {
		tag = strings.TrimSpace(string(b))
	}
	return map[string]any{"thread": map[string]any{"id": s.thread}, "approvalPolicy": approval, "sandbox": map[string]any{"type": tag}}
}

func (s *fakeServer) startTurn(m rpcMessage) (int, bool) {
	var p turnStartParams
	_ = json.Unmarshal(m.Params, &p)
	s.mode = s.takeMode()
	switch s.mode {
	case fakeRefuseStart:
		s.send(map[string]any{"id": m.ID, "error": map[string]any{"code": -32600, "message": "refused"}})
		return 0, false
	case fakeDieOnStart:
		s.effect(p.Input[0].Text)
		return 3, true
	}
	s.turns++
	s.active = fmt.Sprintf("turn-%d", s.turns)
	s.answer(m.ID, map[string]any{"turn": map[string]any{"id": s.active, "status": "inProgress"}})
	s.notify(notifyTurnStarted, map[string]any{"turn": map[string]any{"id": s.active, "status": "inProgress"}})
	s.effect(p.Input[0].Text)
	s.item(notifyItemCompleted, map[string]any{"type": itemTypeUserMessage, "id": "u-" + s.active, "clientId": nil})
	switch {
	case s.mode == fakeEcho:
		s.delta(p.Input[0].Text)
		s.usage(5, 2)
		s.complete("completed")
	case strings.HasPrefix(s.mode, fakeLateDone):
		s.delta(p.Input[0].Text)
		old := s.active
		s.complete("completed")
		s.active = old
		s.delta(strings.TrimPrefix(s.mode, fakeLateDone))
		s.active = ""
	}
	switch s.mode {
	case fakeEcho:
	case fakeCrash:
		s.delta("partial")
		return 2, true
	case fakeApproval:
		s.send(map[string]any{"id": "srv-1", "method": "item/commandExecution/requestApproval",
			"params": map[string]any{"threadId": s.thread, "turnId": s.active, "itemId": "c1"}})
	case fakeAsk:
		s.send(map[string]any{"id": "srv-cmd", "method": methodCommandApproval, "params": map[string]any{"threadId": s.thread,
			"turnId": s.active, "itemId": "c1", "startedAtMs": 1, "command": "rm -rf build", "reason": "needs to clean"}})
		s.send(map[string]any{"id": 7, "method": methodFileChangeApproval, "params": map[string]any{"threadId": s.thread,
			"turnId": s.active, "itemId": "f1", "startedAtMs": 2}})
		s.send(map[string]any{"id": 8, "method": methodFileChangeApproval, "params": map[string]any{"threadId": s.thread,
			"turnId": "turn-other", "itemId": "f2", "startedAtMs": 3}})
		s.delta("working")
	case fakeRetry:
		s.notify(notifyError, map[string]any{"turnId": s.active, "willRetry": true,
			"error": map[string]any{"message": "Reconnecting... 1/5", "codexErrorInfo": map[string]any{"responseStreamConnectionFailed": map[string]any{"httpStatusCode": 502}}}})
	default:
		if !strings.HasPrefix(s.mode, fakeLateDone) {
			s.delta("working")
		}
	}
	return 0, false
}

func (s *fakeServer) item(method string, item map[string]any) {
	s.notify(method, map[string]any{"turnId": s.active, "item": item})
}

func (s *fakeServer) delta(text string) {
	s.notify(notifyAgentDelta, map[string]any{"turnId": s.active, "itemId": "m-" + s.active, "delta": text})
}

func (s *fakeServer) usage(in, out int) {
	b := map[string]any{"totalTokens": in + out, "inputTokens": in, "cachedInputTokens": 0, "outputTokens": out, "reasoningOutputTokens": 0}
	s.notify(notifyTokenUsage, map[string]any{"turnId": s.active, "tokenUsage": map[string]any{"total": b, "last": b}})
}

func (s *fakeServer) complete(status string) {
	s.notify(notifyTurnCompleted, map[string]any{"turn": map[string]any{"id": s.active, "status": status}})
	s.active = ""
}

func (s *fakeServer) steer(m rpcMessage) {
	var p turnSteerParams
	_ = json.Unmarshal(m.Params, &p)
	if s.active == "" || p.ExpectedTurnID != s.active {
		s.send(map[string]any{"id": m.ID, "error": map[string]any{"code": -32600, "message": "no active turn"}})
		return
	}
	s.answer(m.ID, map[string]any{"turnId": s.active})
	if s.mode == fakeNoEcho {
		return
	}
	if s.mode == fakeSlowApply {
		<-time.After(fakeLatency)
	}
	s.effect(p.Input[0].Text)
	s.item(notifyItemStarted, map[string]any{"type": itemTypeUserMessage, "id": "u-" + p.ClientUserMessageID, "clientId": p.ClientUserMessageID})
	s.delta(p.Input[0].Text)
}

func (s *fakeServer) interrupt(m rpcMessage) {
	var p turnInterruptParams
	_ = json.Unmarshal(m.Params, &p)
	if s.mode == fakeDeafCancel {
		return
	}
	if s.active == "" || p.TurnID != s.active {
		s.send(map[string]any{"id": m.ID, "error": map[string]any{"code": -32600, "message": "no active turn to interrupt"}})
		return
	}
	s.answer(m.ID, map[string]any{})
	if s.mode == fakeSlowCancel {
		<-time.After(fakeLatency)
	}
	old := s.active
	s.complete("interrupted")
	if s.mode == fakeLate {
		s.active = old
		s.delta("late")
		s.active = ""
	}
}
