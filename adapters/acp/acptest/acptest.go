// Package acptest is a scripted ACP v1 agent for what a real agent will
// not do on demand: MiniMax Code's steering extension (steered and
// duplicate), a crash in the middle of a prompt, a permission request
// after a cancel, a prompt whose answer never comes and malformed
// JSON-RPC. Run runs it over a reader and a writer; a test binary runs it
// as a child process (Main). Each prompt's first word picks its script:
//
//	echo TEXT     streams "echo: TEXT" and ends the turn (usage 7 in, 2 out)
//	hold          streams "holding" and runs until session/cancel
//	crash         streams "crashing" and exits with status 3
//	never         streams "stuck" and never answers, not even a cancel
//	malformed     streams "bad line" and writes a line that is not JSON-RPC
//	permission    asks permission for a tool call and streams the answer
//	fs            asks the client to read a file and streams the answer
//	late-permission  streams "waiting"; after session/cancel asks
//	              permission, records the answer, then answers cancelled
//
// During a prompt, mcode/session/steer {sessionId, text, clientRequestId}
// answers {turnId, mode: "steered"} and streams "steered: TEXT", or mode
// "duplicate" for a clientRequestId it already took; a text beginning with
// "mute" is taken without an answer the first time, and "refuse" is
// answered with a JSON-RPC error. A prompt of no script streams "echo:"
// and its text and ends the turn, unless the directory named by
// $ACPTEST_HOLD holds a file: the agent removes one (each file holds one
// prompt, whichever agent takes it) and runs that prompt like hold. Every line
// the agent reads is appended to the file named by $ACPTEST_LOG.
package acptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// EnvAgent, set to 1, makes Main run the agent; EnvLog names the log
// file; EnvHold names the directory of hold tokens.
const (
	EnvAgent = "ACPTEST_AGENT"
	EnvLog   = "ACPTEST_LOG"
	EnvHold  = "ACPTEST_HOLD"
)

// Main runs the agent on stdin and stdout when EnvAgent is set, and exits;
// otherwise it returns. A TestMain calls it first.
func Main() {
	if os.Getenv(EnvAgent) != "1" {
		return
	}
	var log io.Writer = io.Discard
	if path := os.Getenv(EnvLog); path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		log = f
	}
	Run(os.Stdin, os.Stdout, log)
	os.Exit(0)
}

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

type agent struct {
	wmu sync.Mutex
	w   io.Writer

	mu       sync.Mutex
	sessions int
	running  *prompt
	steered  map[string]bool // clientRequestIds taken
	nextID   int
	answers  map[string]chan json.RawMessage // our requests by id
}

type prompt struct {
	id        json.RawMessage
	session   string
	cancelled chan struct{}
	once      sync.Once
}

// Run serves one connection until r ends.
func Run(r io.Reader, w io.Writer, log io.Writer) {
	a := &agent{w: w, steered: map[string]bool{}, answers: map[string]chan json.RawMessage{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		_, _ = fmt.Fprintf(log, "%s\n", sc.Bytes())
		var m message
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		a.handle(m)
	}
}

func (a *agent) write(v any) {
	b, _ := json.Marshal(v)
	a.wmu.Lock()
	defer a.wmu.Unlock()
	_, _ = a.w.Write(append(b, '\n'))
}

func (a *agent) reply(id json.RawMessage, result any) {
	a.write(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (a *agent) fail(id json.RawMessage, code int, msg string) {
	a.write(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
}

func (a *agent) chunk(session, text string) {
	a.write(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{
		"sessionId": session, "update": map[string]any{"sessionUpdate": "agent_message_chunk",
			"content": map[string]any{"type": "text", "text": text}}}})
}

// request sends a request to the client and returns the channel of its
// answer (result or error object).
func (a *agent) request(method string, params any) chan json.RawMessage {
	a.mu.Lock()
	a.nextID++
	id := fmt.Sprintf("agent-%d", a.nextID)
	ch := make(chan json.RawMessage, 1)
	a.answers[id] = ch
	a.mu.Unlock()
	a.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return ch
}

func (a *agent) handle(m message) {
	if m.Method == "" {
		var id string
		_ = json.Unmarshal(m.ID, &id)
		a.mu.Lock()
		ch := a.answers[id]
		delete(a.answers, id)
		a.mu.Unlock()
		if ch != nil {
			if m.Error != nil {
				ch <- m.Error
			} else {
				ch <- m.Result
			}
		}
		return
	}
	var p struct {
		SessionID       string `json:"sessionId"`
		Text            string `json:"text"`
		ClientRequestID string `json:"clientRequestId"`
		Prompt          []struct {
			Text string `json:"text"`
		} `json:"prompt"`
	}
	_ = json.Unmarshal(m.Params, &p)
	switch m.Method {
	case "initialize":
		a.reply(m.ID, map[string]any{"protocolVersion": 1,
			"agentCapabilities": map[string]any{"loadSession": true, "promptCapabilities": map[string]any{"image": false}},
			"agentInfo":         map[string]any{"name": "acptest", "version": "0.0.0"},
			"_meta":             map[string]any{"minimax-code/extensions": []string{"mcode/session/steer"}}})
	case "session/new":
		a.mu.Lock()
		a.sessions++
		id := fmt.Sprintf("acptest-session-%d", a.sessions)
		a.mu.Unlock()
		a.reply(m.ID, map[string]any{"sessionId": id})
	case "session/load":
		a.fail(m.ID, -32002, "Resource not found")
	case "session/prompt":
		text := ""
		if len(p.Prompt) > 0 {
			text = p.Prompt[0].Text
		}
		pr := &prompt{id: m.ID, session: p.SessionID, cancelled: make(chan struct{})}
		a.mu.Lock()
		a.running = pr
		a.mu.Unlock()
		go a.run(pr, text)
	case "session/cancel":
		a.mu.Lock()
		pr := a.running
		a.mu.Unlock()
		if pr != nil && pr.session == p.SessionID {
			pr.once.Do(func() { close(pr.cancelled) })
		}
	case "mcode/session/steer":
		a.steer(m.ID, p.SessionID, p.Text, p.ClientRequestID)
	default:
		if len(m.ID) > 0 {
			a.fail(m.ID, -32601, "Method not found")
		}
	}
}

func (a *agent) steer(id json.RawMessage, session, text, key string) {
	a.mu.Lock()
	pr := a.running
	seen := a.steered[key]
	a.steered[key] = true
	a.mu.Unlock()
	switch {
	case pr == nil || pr.session != session || strings.HasPrefix(text, "refuse"):
		a.fail(id, -32603, "no running turn")
	case seen:
		a.reply(id, map[string]any{"turnId": "turn-1", "mode": "duplicate"})
	case strings.HasPrefix(text, "mute"):
		// Taken, never answered.
		a.chunk(session, "steered: "+text)
	default:
		a.reply(id, map[string]any{"turnId": "turn-1", "mode": "steered"})
		a.chunk(session, "steered: "+text)
	}
}

func (a *agent) end(pr *prompt, stop string) {
	a.mu.Lock()
	if a.running == pr {
		a.running = nil
	}
	a.mu.Unlock()
	a.reply(pr.id, map[string]any{"stopReason": stop,
		"usage": map[string]any{"inputTokens": 7, "outputTokens": 2, "totalTokens": 9}})
}

func (a *agent) run(pr *prompt, text string) {
	word, rest, _ := strings.Cut(text, " ")
	switch word {
	case "echo":
		a.chunk(pr.session, "echo: "+rest)
		a.end(pr, "end_turn")
	case "hold":
		a.chunk(pr.session, "holding")
		<-pr.cancelled
		a.end(pr, "cancelled")
	case "crash":
		a.chunk(pr.session, "crashing")
		a.wmu.Lock() // nothing more is written
		os.Exit(3)
	case "never":
		a.chunk(pr.session, "stuck")
	case "malformed":
		a.chunk(pr.session, "bad line")
		a.wmu.Lock()
		_, _ = a.w.Write([]byte("this is not JSON-RPC\n"))
		a.wmu.Unlock()
	case "permission":
		answer := <-a.request("session/request_permission", permissionParams(pr.session))
		a.chunk(pr.session, "permission: "+string(answer))
		a.end(pr, "end_turn")
	case "fs":
		answer := <-a.request("fs/read_text_file", map[string]any{"sessionId": pr.session, "path": "/etc/hostname"})
		a.chunk(pr.session, "fs: "+string(answer))
		a.end(pr, "end_turn")
	case "late-permission":
		a.chunk(pr.session, "waiting")
		<-pr.cancelled
		answer := <-a.request("session/request_permission", permissionParams(pr.session))
		a.chunk(pr.session, "late permission: "+string(answer))
		a.end(pr, "cancelled")
	default:
		if takeHold(os.Getenv(EnvHold)) {
			a.chunk(pr.session, "holding")
			<-pr.cancelled
			a.end(pr, "cancelled")
			return
		}
		a.chunk(pr.session, "echo: "+text)
		a.end(pr, "end_turn")
	}
}

func permissionParams(session string) map[string]any {
	return map[string]any{"sessionId": session,
		"toolCall": map[string]any{"toolCallId": "call-1", "title": "touch a file", "kind": "edit",
			"rawInput": map[string]any{"path": "a.txt"}},
		"options": []map[string]any{
			{"optionId": "yes", "name": "Allow", "kind": "allow_once"},
			{"optionId": "no", "name": "Reject", "kind": "reject_once"}}}
}

// takeHold removes one hold token of dir; false when none was left.
func takeHold(dir string) bool {
	if dir == "" {
		return false
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if os.Remove(filepath.Join(dir, e.Name())) == nil {
			return true
		}
	}
	return false
}
