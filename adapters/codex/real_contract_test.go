package codex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/codex/codextest"
	"github.com/turnstile-sim/turnstile/adapters/contracttest"
	"github.com/turnstile-sim/turnstile/wire"
)

// canaryText is the content contracttest submits to operations it expects
// refused; a model request carrying it is a native effect.
const canaryText = "contract-canary-5e1d"

// The shared text lifecycle against the pinned binary: Hold makes the next
// model request hang until the client leaves, and so the requests that
// follow the kit's steers into a held Turn (a hang left unused by a Turn
// cancelled before its request is dropped by the next Hold).
func TestSharedTextLifecycleRealBinary(t *testing.T) {
	h, m := realHarness(t)
	fx := contracttest.Fixture{
		Config:       realConfig(),
		Capabilities: Capabilities(),
		Hold: func() {
			m.Drop()
			m.Queue(codextest.Reply{Hang: true}, codextest.Reply{Hang: true, Match: canaryText},
				codextest.Reply{Hang: true, Match: `"steer"`})
		},
		Effects: func() string { return canaryEffects(t, m, h.opts.WorkDir) },
		Window:  300 * time.Millisecond,
		Timeout: 60 * time.Second,
	}
	if err := contracttest.TextLifecycle(h, fx); err != nil {
		t.Fatal(err)
	}
}

// canaryEffects fingerprints what an unsupported operation could do
// natively: a model request item carrying the canary other than a user
// message (a steer is one, and supported), or a file named after it in a
// working directory.
func canaryEffects(t *testing.T, m *codextest.ModelServer, workDir string) string {
	n := 0
	for _, body := range m.Requests() {
		items, _ := body["input"].([]any)
		for _, it := range items {
			obj, _ := it.(map[string]any)
			b, _ := json.Marshal(obj)
			if strings.Contains(string(b), canaryText) && !(obj["type"] == "message" && obj["role"] == "user") {
				n++
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(workDir, "*", canaryText+"*"))
	return fmt.Sprintf("%d items, %d files", n, len(files))
}

// A steer written while the model streams, then a cancel before app-server
// applies it: the Turn ends without the userMessage echo, so the input's
// outcome is unknown (never applied, never replayed), and no model request
// carries it.
func TestRealSteerWithoutEchoIsUnknown(t *testing.T) {
	h, m := realHarness(t)
	ex := newRealExecutor(t, h, realConfig())
	hold := make(chan struct{})
	defer close(hold)
	m.Queue(codextest.Reply{Deltas: []string{"working", " never"}, Hold: hold})
	r := startRun(t, ex, "run-steer-cancel", "start")
	r.next(t)
	rc, err := r.turn.SteerDurable(context.Background(), agent.SteerInput{InputID: "input-lost", Input: wire.TextInput("too late")})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.turn.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.settle(t)
	err = rc.AwaitApplied(context.Background())
	switch {
	case errors.Is(err, ErrApplyUnknown):
	case err == nil:
		t.Fatal("the input was reported applied although the turn was interrupted before any echo")
	default:
		t.Fatalf("AwaitApplied = %v, want ErrApplyUnknown", err)
	}
	if n := m.Count("too late"); n != 0 {
		t.Fatalf("%d model requests carried the unapplied input", n)
	}
}
