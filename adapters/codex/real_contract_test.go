package codex

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/codex/codextest"
	"github.com/turnstile-sim/turnstile/adapters/contracttest"
	"github.com/turnstile-sim/turnstile/internal/testgate"
)

// canaryText is the content contracttest submits to operations it expects
// refused; a model request carrying it is a native effect.
const canaryText = "contract-canary-5e1d"

// heldFactory names the held Turn to the model server once StartTurn
// returned it, so that a hold is never passed on to a later Turn.
type heldFactory struct {
	h    *Harness
	m    *codextest.ModelServer
	exit *atomic.Bool // the next started Turn's app-server is killed
}

func (f heldFactory) NewExecutor(ctx context.Context, cfg agent.ExecutorConfig) (agent.Executor, error) {
	ex, err := f.h.NewExecutor(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return heldExecutor{ex.(*Executor), f.m, f.exit}, nil
}

type heldExecutor struct {
	*Executor
	m    *codextest.ModelServer
	exit *atomic.Bool
}

func (e heldExecutor) StartTurn(ctx context.Context, req agent.TurnRequest) (agent.Turn, error) {
	turn, err := e.Executor.StartTurn(ctx, req)
	if t, ok := turn.(*Turn); ok {
		e.m.HeldTurn(t.nativeTurnID())
		if err == nil && e.exit.CompareAndSwap(true, false) {
			// The native process dies in the middle of the Turn.
			_ = syscall.Kill(-e.Pid(), syscall.SIGKILL)
		}
	}
	return turn, err
}

// The shared text lifecycle against the pinned binary: Hold makes every
// model request of the next Turn hang until the client leaves (steered
// requests of a held Turn included); NativeExit holds the next Turn and
// kills its app-server's process group once the Turn started. Messages
// are observed, as Core asks of a kind declaring message_items, so the
// kit judges each output message's start before its completion.
func TestSharedTextLifecycleRealBinary(t *testing.T) {
	testgate.Long(t) // the contract kit waits out its real-time windows, against the real binary
	h, m := realHarness(t)
	exit := new(atomic.Bool)
	cfg := realConfig()
	cfg.Configuration.ObserveMessages = true
	fx := contracttest.Fixture{
		NativeExit: func() {
			m.HoldNextTurn()
			exit.Store(true)
		},
		Config:         cfg,
		Capabilities:   Capabilities(),
		Hold:           m.HoldNextTurn,
		Effects:        func() string { return canaryEffects(t, m, h.opts.WorkDir) },
		UnknownOutcome: ErrApplyUnknown,
		Window:         300 * time.Millisecond,
		Timeout:        60 * time.Second,
		NotApplicable: map[contracttest.Clause]string{
			contracttest.ClauseLateEvents: "not scripted against the real binary; the fake app-server's TestSharedTextLifecycle " +
				"exercises it",
			contracttest.ClauseCleanupFailure: "not scripted: the real binary gives no way to make stopping its process group fail " +
				"(a coverage gap, not a property of Codex)",
			contracttest.ClausePreparedNothingLeft: "not observed: the real binary's processes are not listed by this " +
				"fixture (a coverage gap, not a property of Codex)",
		},
	}
	contracttest.TextLifecycle(t, heldFactory{h, m, exit}, fx)
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
