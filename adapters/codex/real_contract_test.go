package codex

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/codex/codextest"
	"github.com/turnstile-sim/turnstile/adapters/contracttest"
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
