package claudetest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, s *Server, body map[string]any) (*http.Response, []map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(s.URL()+"/v1/messages", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var events []map[string]any
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var ev map[string]any
			if err := json.Unmarshal([]byte(data), &ev); err != nil {
				t.Fatal(err)
			}
			events = append(events, ev)
		}
	}
	return resp, events
}

func mainRequest(text string) map[string]any {
	return map[string]any{"model": "m", "stream": true, "tools": []any{map[string]any{"name": "Bash"}},
		"messages": []any{map[string]any{"role": "user", "content": text}}}
}

func types(evs []map[string]any) string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev["type"].(string))
	}
	return strings.Join(out, ",")
}

// A scripted reply streams the Messages API's SSE events in order: text
// deltas, a tool_use block with its input, the stop reason and usage;
// a request matching no reply streams "ok"; side prompts (no tools) are
// answered and counted apart.
func TestServerStreamsScriptedReplies(t *testing.T) {
	s := NewServer(t)
	s.Queue(Reply{Text: []string{"a", "b"}, Tool: &ToolUse{ID: "toolu_1", Name: "Bash", Input: map[string]any{"command": "ls"}}, Usage: [2]int{7, 3}, Match: "first"})
	_, evs := post(t, s, mainRequest("first question"))
	want := "message_start,ping,content_block_start,content_block_delta,content_block_delta,content_block_stop," +
		"content_block_start,content_block_delta,content_block_stop,message_delta,message_stop"
	if got := types(evs); got != want {
		t.Fatalf("events %s", got)
	}
	if d := evs[9]["delta"].(map[string]any); d["stop_reason"] != "tool_use" || evs[9]["usage"].(map[string]any)["output_tokens"] != 3.0 {
		t.Fatalf("message_delta %v", evs[9])
	}
	if j := evs[7]["delta"].(map[string]any)["partial_json"]; j != `{"command":"ls"}` {
		t.Fatalf("tool input %v", j)
	}
	_, evs = post(t, s, mainRequest("unmatched"))
	if evs[3]["delta"].(map[string]any)["text"] != "ok" {
		t.Fatalf("default reply %v", evs)
	}
	_, evs = post(t, s, map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "title?"}}})
	if len(evs) == 0 || s.SideRequests() != 1 || len(s.Requests()) != 2 {
		t.Fatalf("side prompt: %d events, %d side, %d main", len(evs), s.SideRequests(), len(s.Requests()))
	}
	if got := LastUserText(s.Requests()[0]); got != "first question" {
		t.Fatalf("LastUserText %q", got)
	}
}

// Errors answer with the status and the API's error body; a sticky reply
// answers every request until Clear.
func TestServerErrors(t *testing.T) {
	s := NewServer(t)
	s.Queue(Reply{Status: 429, Sticky: true})
	for range 2 {
		b, _ := json.Marshal(mainRequest("x"))
		resp, err := http.Post(s.URL()+"/v1/messages", "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e struct {
			Type  string
			Error struct{ Type string }
		}
		if resp.StatusCode != 429 || json.Unmarshal(body, &e) != nil || e.Type != "error" || e.Error.Type != "rate_limit_error" {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
	}
	s.Clear()
	if resp, _ := post(t, s, mainRequest("x")); resp.StatusCode != 200 {
		t.Fatalf("after Clear: %d", resp.StatusCode)
	}
	if resp, err := http.Get(s.URL() + "/v1/models"); err != nil || resp.StatusCode != 404 {
		t.Fatalf("another route: %v %v", resp, err)
	}
}

// A held session's requests answer with a tool call until released.
func TestServerHoldSession(t *testing.T) {
	s := NewServer(t)
	s.HoldSession("sess-1")
	req := mainRequest("x")
	req["metadata"] = map[string]any{"user_id": "session_sess-1"}
	if _, evs := post(t, s, req); !strings.Contains(types(evs), "content_block_start,content_block_delta,content_block_stop,message_delta") || !s.Holding() {
		t.Fatalf("held: %s", types(evs))
	}
	s.ReleaseSession("sess-1")
	if _, evs := post(t, s, req); evs[3]["delta"].(map[string]any)["text"] != "ok" || s.Holding() {
		t.Fatalf("released: %v", evs)
	}
}
