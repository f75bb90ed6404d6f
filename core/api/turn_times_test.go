package api_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
)

// countingResources counts the reads of Turn records.
type countingResources struct {
	*api.MemoryResources
	turnReads atomic.Int64
}

func (c *countingResources) GetResource(ctx context.Context, kind, id string) ([]byte, bool, error) {
	if kind == "turn" {
		c.turnReads.Add(1)
	}
	return c.MemoryResources.GetResource(ctx, kind, id)
}

// A Turn's creation time is read from the store by its submission (which
// checks for a replay), and once more by a stream that saw the Turn's
// commit before the submission recorded the time; the Session and the Turn
// list then answer it from memory, and a fresh shell reads it from the
// store again.
func TestTurnCreationTimeReadFromTheStoreOnce(t *testing.T) {
	base := newEnv(t)
	stop := base.connect(&scripted.Runtime{Deltas: 1})
	defer stop()
	res := &countingResources{MemoryResources: api.NewMemoryResources()}
	e := base.withResources(res)
	s := e.v1Session(inlineSession)
	ch, closeStream := e.v1Stream(s.ID, "")
	defer closeStream()
	tid := e.postEvents(s.ID, helloMessage).Receipts[0].TurnID
	until(t, ch, api.EvSessionIdle)
	// The POST records the time and keeps it (one read: its replay check);
	// a stream that saw the Turn's commit first may have read once more.
	if n := res.turnReads.Load(); n < 1 || n > 2 {
		t.Fatalf("%d reads of turn records while the Turn ran, want 1 or 2", n)
	}
	before := res.turnReads.Load()
	for _, path := range []string{"/v1/agents/sessions/" + s.ID, "/v1/agents/sessions/" + s.ID + "/turns",
		"/v1/agents/sessions/" + s.ID + "/turns/" + tid} {
		if st, body := e.v1("GET", path, ""); st != 200 || !strings.Contains(body, `"created_at"`) {
			t.Fatalf("GET %s: %d %s", path, st, body)
		}
	}
	if n := res.turnReads.Load(); n != before {
		t.Fatalf("%d reads of turn records after the Session's, Turns' and Turn's reads, want %d: they read the kept time", n, before)
	}
	if st, _ := e.withResources(res).v1("GET", "/v1/agents/sessions/"+s.ID+"/turns/"+tid, ""); st != 200 {
		t.Fatalf("fresh shell: %d", st)
	}
	if n := res.turnReads.Load(); n != before+1 {
		t.Fatalf("%d reads of turn records after a fresh shell's read, want %d", n, before+1)
	}
}
