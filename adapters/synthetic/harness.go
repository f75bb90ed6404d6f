package synthetic

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// Kind is the registered kind of the synthetic Harness.
const Kind = "synthetic"

// StartFailure selects how a scripted StartTurn fails.
type StartFailure int

const (
	// StartOK starts normally.
	StartOK StartFailure = iota
	// StartFailsBeforeInput refuses before any input is submitted: nil Turn
	// and agent.ErrExecutorUnavailable.
	StartFailsBeforeInput
	// StartFailsAfterInput submits the input, then fails: a non-nil Turn
	// and an error. The Turn emits nothing, closes its output and settles
	// non-reusable.
	StartFailsAfterInput
)

// TurnScript is the native behaviour of one Turn.
type TurnScript struct {
	// Deltas are streamed in order. When nil and Hold is false, the Turn
	// echoes its input text as one delta.
	Deltas []string
	// Thinking, when set, is emitted before the first delta.
	Thinking string
	// Usage, when set, is emitted after the deltas and carried by done.
	Usage *wire.Usage
	// Error, when set, is emitted before done.
	Error *wire.RunError
	// NativeSessionID is reported in done's metadata; empty means the
	// Executor's native session identity.
	NativeSessionID string
	// EventInterval paces the events (virtual time under synctest).
	EventInterval time.Duration
	// Hold keeps the Turn running after its deltas until it is cancelled,
	// applying steered input meanwhile.
	Hold bool
	// CancelLatency delays the native end after a cancel (slow cancel).
	CancelLatency time.Duration
	// StartFailure scripts a StartTurn failure.
	StartFailure StartFailure
	// Retire, when set, settles the Turn with Reusable=false and this reason.
	Retire string
	// SteerApplyLatency delays native application of steered input after
	// its write completed.
	SteerApplyLatency time.Duration
	// LateDelta, when set, is delivered by one more native callback after
	// the Turn settled; the callback captured its Turn, so it is dropped.
	LateDelta string
	// Asks are emitted after the deltas, in order (wire.PermissionRequest,
	// wire.UserChoicePrompt or wire.FunctionCall); the Turn then waits
	// until each is answered (or it is cancelled). Answering needs the
	// Harness's Extensions.
	Asks []wire.Payload
}

// Truth is the Harness's ground truth: what really happened natively.
type Truth struct {
	ExecutorsCreated int
	ExecutorsClosed  int
	TurnsStarted     int
	// InputsApplied lists every input text the native side consumed, in
	// order: initial inputs and applied steering inputs.
	InputsApplied []string
	// CloseFailures counts refused Close attempts.
	CloseFailures int
	// PreparationsCancelled and PreparationsReleased count
	// CancelPrepared and Release calls of unused Executors.
	PreparationsCancelled, PreparationsReleased int
	// Decisions lists every decision applied natively, in order:
	// "permission:<id>:<approved>", "user_choice:<id>:<answers or
	// cancelled>", "function:<call id>:<success>".
	Decisions []string
}

// Harness is the synthetic native engine: it creates Executors, hands out
// scripts in order and records ground truth. It is safe for concurrent use.
type Harness struct {
	mu            sync.Mutex
	scripts       []TurnScript
	closeFailures int
	nextExecutor  int
	truth         Truth
	ext           Extensions
}

// New returns a Harness with no scripts: every Turn echoes its input.
func New() *Harness { return &Harness{} }

// NewWith returns a Harness with the given extensions qualified.
func NewWith(ext Extensions) *Harness { return &Harness{ext: ext} }

// Script queues scripts; each StartTurn on any Executor takes the next one.
func (h *Harness) Script(scripts ...TurnScript) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.scripts = append(h.scripts, scripts...)
}

// FailCloses makes the next n Close attempts fail with agent.ErrCloseFailed.
func (h *Harness) FailCloses(n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closeFailures += n
}

// Truth returns a snapshot of the ground truth.
func (h *Harness) Truth() Truth {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.truth
	t.InputsApplied = slices.Clone(t.InputsApplied)
	t.Decisions = slices.Clone(t.Decisions)
	return t
}

func (h *Harness) nextScript() TurnScript {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.scripts) == 0 {
		return TurnScript{}
	}
	s := h.scripts[0]
	h.scripts = h.scripts[1:]
	return s
}

func (h *Harness) record(f func(*Truth)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f(&h.truth)
}

// takeCloseFailure consumes one scripted close failure.
func (h *Harness) takeCloseFailure() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closeFailures == 0 {
		return false
	}
	h.closeFailures--
	h.truth.CloseFailures++
	return true
}

// NewExecutor prepares an Executor without model input.
func (h *Harness) NewExecutor(ctx context.Context, cfg agent.ExecutorConfig) (agent.Executor, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := validateConfig(cfg); err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.nextExecutor++
	id := h.nextExecutor
	h.truth.ExecutorsCreated++
	h.mu.Unlock()
	return &Executor{h: h, cfg: cfg, nativeSession: fmt.Sprintf("synthetic-session-%d", id)}, nil
}

func validateConfig(cfg agent.ExecutorConfig) error {
	if cfg.SessionID == "" {
		return fmt.Errorf("%w: blank session ID", agent.ErrInvalidConfiguration)
	}
	if k := cfg.Configuration.AgentKind; k != "" && k != Kind {
		return fmt.Errorf("%w: configuration for another kind", agent.ErrInvalidConfiguration)
	}
	if cfg.Configuration.LocalEnvironment != nil {
		// It runs in the bound workspace: that directory must exist.
		if st, err := os.Stat(cfg.WorkspaceRoot); cfg.WorkspaceRoot == "" || err != nil || !st.IsDir() {
			return fmt.Errorf("%w: a local environment needs a bound workspace directory", agent.ErrInvalidConfiguration)
		}
	}
	if len(cfg.Configuration.FunctionTools) > 0 {
		return agent.Unsupported(reasonFunctions)
	}
	if len(cfg.MCP.Servers) > 0 {
		return agent.Unsupported(reasonMCP)
	}
	return Configuration().ValidateOptions(cfg.Configuration.AgentOptions)
}

// Configuration is the synthetic kind's model configuration: it connects to
// no model provider.
func Configuration() agent.ModelConfiguration {
	return agent.ModelConfiguration{Protocols: []agent.ModelProtocol{}}
}
