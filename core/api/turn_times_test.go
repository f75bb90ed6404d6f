package api_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
)

// countingResources counts the reads of Turn records, and those that
// found one.
type countingResources struct {
	*api.MemoryResources
	turnReads, turnHits atomic.Int64
}

func (c *countingResources) GetResource(ctx context.Context, kind, id string) ([]byte, bool, error) {
	doc, ok, err := c.MemoryResources.GetResource(ctx, kind, id)
	if kind == "turn" {
		c.turnReads.Add(1)
		if ok {
			c.turnHits.Add(1)
		}
	}
	return doc, ok, err
}

// A Turn's creation time is read from the store by its submission (which
// checks for a replay, and finds none), and by a stream that saw the
// Turn's commit before the submission recorded the time, once per
// snapshot until it is recorded (misses too); once recorded, the shell
// never reads it again: the Session and the Turn list answer it from
// memory. A fresh shell reads it from the store.
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
	// The POST records the time and keeps it (its replay check missed);
	// a stream that saw the Turn's commit first missed as often as it
	// looked before then; nothing found the record in the store.
	if n, hits := res.turnReads.Load(), res.turnHits.Load(); n < 1 || hits != 0 {
		t.Fatalf("%d reads of turn records while the Turn ran, %d of them found it: want at least the submission's, none finding it", n, hits)
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
	if n, hits := res.turnReads.Load(), res.turnHits.Load(); n != before+1 || hits != 1 {
		t.Fatalf("%d reads of turn records (%d found it) after a fresh shell's read, want %d (1)", n, hits, before+1)
	}
}
