// Package codextest holds test fixtures for the Codex adapter and for
// tests that run it end to end: a fake of the Responses API streaming
// endpoint and a CODEX_HOME whose default model provider is that fake.
package codextest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Reply scripts one model response.
type Reply struct {
	Status int           // non-zero: answer with this HTTP error status
	Deltas []string      // streamed text deltas (nil: "ok")
	Hold   chan struct{} // after the first delta, wait until closed or the client leaves
	Hang   bool          // stream nothing after response.created until the client leaves
	Usage  [2]int        // input and output tokens; zero reports none
	Match  string        // non-empty: only for a request whose last input item contains it
	// Interval paces the deltas (the stream is slow).
	Interval time.Duration
	// Patch, when set, makes the response one apply_patch custom tool
	// call with this patch as its input, instead of text.
	Patch string
	// Phase, when set, is the assistant message's phase (commentary,
	// final_answer).
	Phase string
	// Search, when set, makes the response begin with one completed
	// web_search_call item searching for it, before the text.
	Search string
}

// ModelServer is an httptest fake of POST /v1/responses, scripted per
// request: a request takes the first queued Reply that matches it; with
// none it streams "ok".
type ModelServer struct {
	srv *httptest.Server

	mu       sync.Mutex
	replies  []Reply
	requests []map[string]any
	arrived  chan struct{}
	cond     *sync.Cond
	// pendingHolds counts holds not yet given to a turn; named maps every
	// turn HeldTurn named to whether its requests hang.
	pendingHolds int
	named        map[string]bool
}

// NewModelServer starts the fake on loopback; it stops with the test.
func NewModelServer(t testing.TB) *ModelServer {
	m := &ModelServer{arrived: make(chan struct{}, 1), named: make(map[string]bool)}
	m.cond = sync.NewCond(&m.mu)
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

// URL is the server's base URL.
func (m *ModelServer) URL() string { return m.srv.URL }

// Queue appends scripted replies.
func (m *ModelServer) Queue(rs ...Reply) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.replies = append(m.replies, rs...)
}

// HoldNextTurn makes every request of the next turn hang until the client
// leaves. Holds queue up: each one goes to the next turn HeldTurn names,
// so two holds armed before either turn's first request hold both turns.
// A request of a turn not named yet waits for its name while a hold is
// pending (StartTurn may return after the first model request arrived),
// so a turn cancelled before its first request never passes its hold on.
func (m *ModelServer) HoldNextTurn() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pendingHolds++
}

// HeldTurn names a started turn (call it for every started turn): it
// takes the oldest pending hold, if any; a turn named with none pending
// is not held.
func (m *ModelServer) HeldTurn(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.named[id]; ok || id == "" {
		return
	}
	m.named[id] = m.pendingHolds > 0
	if m.pendingHolds > 0 {
		m.pendingHolds--
	}
	m.cond.Broadcast()
}

// holds reports whether a request of turn tid hangs, waiting for its name
// while a hold is pending; m.mu is held and stays held on return.
func (m *ModelServer) holds(r *http.Request, tid string) bool {
	if tid == "" {
		return false
	}
	stop := context.AfterFunc(r.Context(), func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.cond.Broadcast()
	})
	defer stop()
	for {
		if held, ok := m.named[tid]; ok {
			return held
		}
		if m.pendingHolds == 0 || r.Context().Err() != nil {
			return false
		}
		m.cond.Wait()
	}
}

// Drop removes every queued reply that is still unused.
func (m *ModelServer) Drop() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.replies = nil
}

// Requests returns the decoded bodies of the requests so far.
func (m *ModelServer) Requests() []map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]map[string]any(nil), m.requests...)
}

// Count returns how many requests carried s anywhere in their input.
func (m *ModelServer) Count(s string) int {
	n := 0
	for _, b := range m.Requests() {
		if strings.Contains(InputText(b), s) {
			n++
		}
	}
	return n
}

// WaitRequests waits until n requests arrived (at most 30 s).
func (m *ModelServer) WaitRequests(t testing.TB, n int) {
	t.Helper()
	timer := time.NewTimer(30 * time.Second)
	defer timer.Stop()
	for len(m.Requests()) < n {
		select {
		case <-m.arrived:
		case <-timer.C:
			t.Fatalf("model requests: %d, want %d", len(m.Requests()), n)
		}
	}
}

func (m *ModelServer) serve(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/responses") {
		http.NotFound(w, r)
		return
	}
	var body map[string]any
	b, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(b, &body)
	m.mu.Lock()
	m.requests = append(m.requests, body)
	n := len(m.requests)
	rp := Reply{}
	last := lastInput(body)
	meta, _ := body["client_metadata"].(map[string]any)
	tid, _ := meta["turn_id"].(string)
	held := m.holds(r, tid)
	for i, q := range m.replies {
		if held {
			break
		}
		if q.Match == "" || strings.Contains(last, q.Match) {
			rp = q
			m.replies = append(m.replies[:i:i], m.replies[i+1:]...)
			break
		}
	}
	rp.Hang = rp.Hang || held
	m.mu.Unlock()
	select {
	case m.arrived <- struct{}{}:
	default:
	}
	if rp.Status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rp.Status)
		fmt.Fprintf(w, `{"error":{"message":"scripted status %d","type":"test"}}`, rp.Status)
		return
	}
	stream(w, r, n, rp)
}

func stream(w http.ResponseWriter, r *http.Request, n int, rp Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	id, msg := fmt.Sprintf("resp_%d", n), fmt.Sprintf("msg_%d", n)
	ev := func(v map[string]any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v["type"], b)
		fl.Flush()
	}
	ev(map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	if rp.Hang {
		<-r.Context().Done()
		return
	}
	if rp.Patch != "" {
		call := map[string]any{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_%d", n), "call_id": fmt.Sprintf("call_%d", n),
			"name": "apply_patch", "input": rp.Patch, "status": "completed"}
		ev(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": call})
		ev(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": call})
		ev(map[string]any{"type": "response.completed", "response": map[string]any{"id": id}})
		return
	}
	index := 0
	if rp.Search != "" {
		call := map[string]any{"type": "web_search_call", "id": fmt.Sprintf("ws_%d", n), "status": "completed",
			"action": map[string]any{"type": "search", "query": rp.Search}}
		ev(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": call})
		ev(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": call})
		index = 1
	}
	message := func(content []any) map[string]any {
		m := map[string]any{"type": "message", "id": msg, "role": "assistant", "content": content}
		if rp.Phase != "" {
			m["phase"] = rp.Phase
		}
		return m
	}
	ev(map[string]any{"type": "response.output_item.added", "output_index": index, "item": message([]any{})})
	deltas := rp.Deltas
	if deltas == nil {
		deltas = []string{"ok"}
	}
	text := ""
	for i, d := range deltas {
		text += d
		ev(map[string]any{"type": "response.output_text.delta", "item_id": msg, "output_index": index, "content_index": 0, "delta": d})
		if rp.Interval > 0 && i+1 < len(deltas) {
			t := time.NewTimer(rp.Interval)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		if i == 0 && rp.Hold != nil {
			select {
			case <-rp.Hold:
			case <-r.Context().Done():
				return
			}
		}
	}
	ev(map[string]any{"type": "response.output_item.done", "output_index": index, "item": message([]any{map[string]any{"type": "output_text", "text": text}})})
	resp := map[string]any{"id": id}
	if rp.Usage != [2]int{} {
		resp["usage"] = map[string]any{"input_tokens": rp.Usage[0], "output_tokens": rp.Usage[1], "total_tokens": rp.Usage[0] + rp.Usage[1],
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}
	}
	ev(map[string]any{"type": "response.completed", "response": resp})
}

// Home writes a CODEX_HOME whose default model is gpt-5.5 on provider
// "fake": m over the Responses API with retries off.
func Home(t testing.TB, m *ModelServer) string {
	t.Helper()
	home := t.TempDir()
	cfg := fmt.Sprintf(`model = "gpt-5.5"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
stream_idle_timeout_ms = 60000
`, m.URL())
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// InputText is the JSON of every input item of a request body, one a line.
func InputText(body map[string]any) string {
	var sb strings.Builder
	items, _ := body["input"].([]any)
	for _, it := range items {
		b, _ := json.Marshal(it)
		sb.Write(b)
		sb.WriteByte('\n')
	}
	return sb.String()
}

func lastInput(body map[string]any) string {
	items, _ := body["input"].([]any)
	if len(items) == 0 {
		return ""
	}
	b, _ := json.Marshal(items[len(items)-1])
	return string(b)
}

// ToolNames lists the names of a request's tools (a namespace by its name).
func ToolNames(body map[string]any) []string {
	var out []string
	tools, _ := body["tools"].([]any)
	for _, tl := range tools {
		m, _ := tl.(map[string]any)
		name, _ := m["name"].(string)
		if name == "" {
			name, _ = m["type"].(string)
		}
		out = append(out, name)
	}
	return out
}
