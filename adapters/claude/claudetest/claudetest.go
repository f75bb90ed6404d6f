// Package claudetest holds test fixtures for the Claude Code adapter and
// for tests that run it end to end: a fake of the Anthropic Messages API
// (POST /v1/messages with stream:true) on loopback, scripted per test, and
// the offline environment that points the CLI at it.
package claudetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// ToolUse is one tool_use block a Reply ends with.
type ToolUse struct {
	ID    string         // tool_use ID (default toolu_<n>)
	Name  string         // tool name, e.g. "Bash"
	Input map[string]any // the tool's input, streamed as input_json_delta
}

// Reply scripts one main-conversation model response.
type Reply struct {
	// Match, when non-empty, makes the Reply answer only a request whose
	// last user message contains it.
	Match string
	// Text is streamed as text_delta events of one text block (nil and no
	// Tool: "ok").
	Text []string
	// Tool, when set, follows the text as a tool_use block; the response
	// stops with stop_reason tool_use.
	Tool *ToolUse
	// Usage is reported in message_start (input) and message_delta
	// (output); zero reports zero.
	Usage [2]int
	// Status, when non-zero, answers with this HTTP status and an error
	// body of ErrorType (default: the Messages API's type for the status).
	Status    int
	ErrorType string
	// Sticky keeps the Reply queued: it answers every matching request
	// (a persistent outage).
	Sticky bool
	// Hang sends the response headers and message_start, then nothing
	// until the client leaves.
	Hang bool
	// Hold, after the first text delta, waits until closed or the client
	// leaves.
	Hold chan struct{}
	// Interval paces the events (a slow stream).
	Interval time.Duration
}

// Server is an httptest fake of the Messages API's streaming endpoint.
// A main-conversation request takes the first queued Reply that matches
// it; with none it streams "ok". Side prompts (requests without tools,
// such as title or suggestion generation) are answered with a short text
// and are not recorded as main requests.
type Server struct {
	srv  *httptest.Server
	tool atomic.Int64

	mu       sync.Mutex
	loops    map[string]bool // sessions whose requests loop on a tool
	replies  []Reply
	requests []map[string]any // main-conversation requests, in arrival order
	side     int
	arrived  chan struct{}
}

// NewServer starts the fake on loopback; it stops with the test.
func NewServer(t testing.TB) *Server {
	s := &Server{arrived: make(chan struct{}, 64)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the server's base URL (ANTHROPIC_BASE_URL).
func (s *Server) URL() string { return s.srv.URL }

// Queue appends scripted replies.
func (s *Server) Queue(rs ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, rs...)
}

// Clear drops every queued reply (a sticky outage ends).
func (s *Server) Clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = nil
}

// Requests returns the decoded main-conversation requests so far.
func (s *Server) Requests() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.requests...)
}

// SideRequests is the number of side prompts answered.
func (s *Server) SideRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.side
}

// Arrived signals each main-conversation request as it arrives.
func (s *Server) Arrived() <-chan struct{} { return s.arrived }

// Env is the offline environment pointing the CLI at the fake, with a
// dummy key.
func (s *Server) Env() []string {
	return []string{
		"ANTHROPIC_BASE_URL=" + s.URL(),
		"ANTHROPIC_API_KEY=sk-ant-claudetest-dummy",
	}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1/messages") {
		http.NotFound(w, r)
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "unreadable body", http.StatusBadRequest)
		return
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, "body is not JSON", http.StatusBadRequest)
		return
	}
	if strings.HasSuffix(r.URL.Path, "/count_tokens") {
		writeJSON(w, map[string]any{"input_tokens": 1})
		return
	}
	if !IsMain(body) {
		s.mu.Lock()
		s.side++
		s.mu.Unlock()
		s.answer(w, r, body, Reply{Text: []string{"Side answer"}}, false)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, body)
	reply := Reply{}
	last := LastUserText(body)
	if s.looping(r, raw) {
		s.mu.Unlock()
		s.answer(w, r, body, holdReply, true)
		return
	}
	for i, rp := range s.replies {
		if rp.Match == "" || strings.Contains(last, rp.Match) {
			reply = rp
			if !rp.Sticky {
				s.replies = append(s.replies[:i:i], s.replies[i+1:]...)
			}
			break
		}
	}
	s.mu.Unlock()
	select {
	case s.arrived <- struct{}{}:
	default:
	}
	s.answer(w, r, body, reply, true)
}

// holdReply keeps a held session's native turn running: a quick Bash
// call (a tool boundary, where the CLI folds written input), paced so
// that the loop stays cheap, and again for its result.
var holdReply = Reply{Text: []string{"holding"}, Interval: 50 * time.Millisecond,
	Tool: &ToolUse{Name: "Bash", Input: map[string]any{"command": "echo held", "description": "hold"}}}

// HoldSession makes every main request of the native session id (named
// in the request's headers or body) answer with a tool call, so that the
// session's native turn keeps running, folding written input at each tool
// boundary, until it is interrupted or ReleaseSession is called. An empty
// id holds every session.
func (s *Server) HoldSession(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loops == nil {
		s.loops = map[string]bool{}
	}
	s.loops[id] = true
}

// ReleaseSession ends HoldSession for id.
func (s *Server) ReleaseSession(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.loops, id)
}

// Holding reports whether any session is held.
func (s *Server) Holding() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.loops) > 0
}

// looping reports whether the request belongs to a held session; s.mu is
// held.
func (s *Server) looping(r *http.Request, raw []byte) bool {
	for id := range s.loops {
		if strings.Contains(string(raw), id) {
			return true
		}
		for _, vs := range r.Header {
			for _, v := range vs {
				if strings.Contains(v, id) {
					return true
				}
			}
		}
	}
	return false
}

// IsMain reports whether a request belongs to the main conversation: it
// offers tools (side prompts such as titles and suggestions offer none).
func IsMain(body map[string]any) bool {
	tools, _ := body["tools"].([]any)
	return len(tools) > 0
}

var errorTypes = map[int]string{
	400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
	404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error",
	500: "api_error", 529: "overloaded_error",
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request, body map[string]any, rp Reply, main bool) {
	if rp.Status != 0 {
		typ := rp.ErrorType
		if typ == "" {
			typ = errorTypes[rp.Status]
		}
		if typ == "" {
			typ = "api_error"
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rp.Status)
		_ = json.NewEncoder(w).Encode(map[string]any{"type": "error",
			"error": map[string]any{"type": typ, "message": fmt.Sprintf("claudetest: scripted %d", rp.Status)}})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	ctx := r.Context()
	model, _ := body["model"].(string)
	send := func(event string, data map[string]any) bool {
		if ctx.Err() != nil {
			return false
		}
		b, _ := json.Marshal(data)
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b); err != nil {
			return false
		}
		if fl != nil {
			fl.Flush()
		}
		if rp.Interval > 0 {
			select {
			case <-time.After(rp.Interval):
			case <-ctx.Done():
				return false
			}
		}
		return true
	}
	msgID := fmt.Sprintf("msg_claudetest_%d", s.tool.Add(1))
	if !send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": rp.Usage[0], "output_tokens": 0}}}) {
		return
	}
	if rp.Hang {
		<-ctx.Done()
		return
	}
	send("ping", map[string]any{"type": "ping"})
	text := rp.Text
	if text == nil && rp.Tool == nil {
		text = []string{"ok"}
	}
	index := 0
	if len(text) > 0 {
		if !send("content_block_start", map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "text", "text": ""}}) {
			return
		}
		for i, d := range text {
			if !send("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "text_delta", "text": d}}) {
				return
			}
			if i == 0 && rp.Hold != nil {
				select {
				case <-rp.Hold:
				case <-ctx.Done():
					return
				}
			}
		}
		if !send("content_block_stop", map[string]any{"type": "content_block_stop", "index": index}) {
			return
		}
		index++
	}
	stop := "end_turn"
	if rp.Tool != nil {
		stop = "tool_use"
		id := rp.Tool.ID
		if id == "" {
			id = fmt.Sprintf("toolu_claudetest_%d", s.tool.Add(1))
		}
		input, _ := json.Marshal(rp.Tool.Input)
		if !send("content_block_start", map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "tool_use", "id": id, "name": rp.Tool.Name, "input": map[string]any{}}}) {
			return
		}
		if !send("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}}) {
			return
		}
		if !send("content_block_stop", map[string]any{"type": "content_block_stop", "index": index}) {
			return
		}
	}
	if !send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": rp.Usage[1]}}) {
		return
	}
	send("message_stop", map[string]any{"type": "message_stop"})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// LastUserText is the text of the request's last user message (its text
// blocks and tool results, joined).
func LastUserText(body map[string]any) string {
	msgs, _ := body["messages"].([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		m, _ := msgs[i].(map[string]any)
		if m["role"] == "user" {
			return contentText(m["content"])
		}
	}
	return ""
}

// AllText is the text of every message of the request, joined (to find
// the history a request carries).
func AllText(body map[string]any) string {
	msgs, _ := body["messages"].([]any)
	var b strings.Builder
	for _, x := range msgs {
		m, _ := x.(map[string]any)
		b.WriteString(contentText(m["content"]))
		b.WriteByte('\n')
	}
	return b.String()
}

func contentText(c any) string {
	switch c := c.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, x := range c {
			blk, _ := x.(map[string]any)
			switch blk["type"] {
			case "text":
				s, _ := blk["text"].(string)
				b.WriteString(s)
				b.WriteByte('\n')
			case "tool_result":
				b.WriteString(contentText(blk["content"]))
				b.WriteByte('\n')
			}
		}
		return b.String()
	}
	return ""
}

// ToolNames lists the names of the tools a request offers.
func ToolNames(body map[string]any) []string {
	tools, _ := body["tools"].([]any)
	var names []string
	for _, x := range tools {
		t, _ := x.(map[string]any)
		if n, ok := t["name"].(string); ok {
			names = append(names, n)
		}
	}
	return names
}
