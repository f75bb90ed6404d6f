package codextest

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
)

// post sends a model request of turn tid and returns the stream's text;
// with stopEarly it leaves after the first event (a held stream sends
// nothing more until then).
func post(t *testing.T, m *ModelServer, tid string, stopEarly bool) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body := `{"client_metadata":{"turn_id":"` + tid + `"},"input":[]}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, m.URL()+"/v1/responses", strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sb strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		sb.WriteString(sc.Text() + "\n")
		if stopEarly && strings.HasPrefix(sc.Text(), "data:") {
			break
		}
	}
	return sb.String()
}

// Two holds armed before either turn's first request hold both turns, in
// the order the turns are named; a turn named with no hold pending is not
// held, and held requests take no scripted reply.
func TestHoldsQueueUp(t *testing.T) {
	m := NewModelServer(t)
	m.Queue(Reply{Deltas: []string{"from-queue"}})
	m.HoldNextTurn()
	m.HoldNextTurn()
	m.HeldTurn("turn-a")
	m.HeldTurn("turn-b")
	m.HeldTurn("turn-c")
	for _, tid := range []string{"turn-b", "turn-a"} {
		if got := post(t, m, tid, true); !strings.Contains(got, "response.created") || strings.Contains(got, "from-queue") {
			t.Fatalf("%s: held stream %q", tid, got)
		}
	}
	if got := post(t, m, "turn-c", false); !strings.Contains(got, "from-queue") || !strings.Contains(got, "response.completed") {
		t.Fatalf("turn-c was not served the queued reply: %q", got)
	}
}
