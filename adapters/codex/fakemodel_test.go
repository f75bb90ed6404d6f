package codex

import (
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

// modelServer is an httptest fake of the Responses API streaming endpoint
// (POST /v1/responses), scripted per request: each request takes the next
// reply; with none queued it answers with the text "ok".
type modelServer struct {
	srv *httptest.Server

	mu       sync.Mutex
	replies  []reply
	requests []map[string]any
	arrived  chan int // request count after each arrival
}

// reply scripts one model response.
type reply struct {
	status  int           // non-zero: answer with this HTTP error
	deltas  []string      // streamed text deltas
	hold    chan struct{} // after the first delta, wait until closed (or the client leaves)
	hang    bool          // stream nothing after response.created until the client leaves
	usage   [2]int        // input and output tokens (zero: none reported)
	noFinal bool          // leave the stream open without response.completed
	match   string        // non-empty: only for a request whose last input item contains it
}

func newModelServer(t *testing.T) *modelServer {
	m := &modelServer{arrived: make(chan int, 64)}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *modelServer) queue(rs ...reply) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.replies = append(m.replies, rs...)
}

func (m *modelServer) bodies() []map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]map[string]any(nil), m.requests...)
}

// waitRequests waits until n requests arrived.
func (m *modelServer) waitRequests(t *testing.T, n int) {
	t.Helper()
	timer := time.NewTimer(30 * time.Second)
	defer timer.Stop()
	for {
		m.mu.Lock()
		got := len(m.requests)
		m.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-m.arrived:
		case <-timer.C:
			t.Fatalf("model requests: %d, want %d", got, n)
		}
	}
}

func (m *modelServer) serve(w http.ResponseWriter, r *http.Request) {
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
	rp := reply{deltas: []string{"ok"}}
	last := lastInput(body)
	for i, q := range m.replies {
		if q.match == "" || strings.Contains(last, q.match) {
			rp = q
			m.replies = append(m.replies[:i:i], m.replies[i+1:]...)
			break
		}
	}
	m.mu.Unlock()
	m.arrived <- n
	if rp.status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rp.status)
		fmt.Fprintf(w, `{"error":{"message":"scripted status %d","type":"test"}}`, rp.status)
		return
	}
	m.stream(w, r, n, rp)
}

func (m *modelServer) stream(w http.ResponseWriter, r *http.Request, n int, rp reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	id := fmt.Sprintf("resp_%d", n)
	msg := fmt.Sprintf("msg_%d", n)
	ev := func(v map[string]any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v["type"], b)
		fl.Flush()
	}
	ev(map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	if rp.hang {
		<-r.Context().Done()
		return
	}
	ev(map[string]any{"type": "response.output_item.added", "output_index": 0,
		"item": map[string]any{"type": "message", "id": msg, "role": "assistant", "content": []any{}}})
	text := ""
	for i, d := range rp.deltas {
		text += d
		ev(map[string]any{"type": "response.output_text.delta", "item_id": msg, "output_index": 0, "content_index": 0, "delta": d})
		if i == 0 && rp.hold != nil {
			select {
			case <-rp.hold:
			case <-r.Context().Done():
				return
			}
		}
	}
	ev(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": map[string]any{"type": "message", "id": msg,
		"role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": text}}}})
	if rp.noFinal {
		<-r.Context().Done()
		return
	}
	resp := map[string]any{"id": id}
	if rp.usage != [2]int{} {
		resp["usage"] = map[string]any{"input_tokens": rp.usage[0], "output_tokens": rp.usage[1], "total_tokens": rp.usage[0] + rp.usage[1],
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}
	}
	ev(map[string]any{"type": "response.completed", "response": resp})
}

// codexHome writes a CODEX_HOME whose default model provider is the fake,
// over the Responses API with retries off.
func codexHome(t *testing.T, m *modelServer) string {
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
`, m.srv.URL)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// inputTexts lists the text of every input item of a request body.
func inputTexts(body map[string]any) string {
	var sb strings.Builder
	items, _ := body["input"].([]any)
	for _, it := range items {
		b, _ := json.Marshal(it)
		sb.Write(b)
		sb.WriteByte('\n')
	}
	return sb.String()
}

// lastInput is the JSON of a request's last input item.
func lastInput(body map[string]any) string {
	items, _ := body["input"].([]any)
	if len(items) == 0 {
		return ""
	}
	b, _ := json.Marshal(items[len(items)-1])
	return string(b)
}

// toolNames lists the names of a request's tools (namespaces included).
func toolNames(body map[string]any) []string {
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
