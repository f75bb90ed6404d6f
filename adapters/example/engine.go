package example

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
)

// Behaviour is how the native engine runs one Turn.
type Behaviour struct {
	Interval    time.Duration // pause before each word
	Hold        bool          // keep running after the words until cancelled
	ApplyDelay  time.Duration // steered input is applied this long after its write
	CancelDelay time.Duration // the native end takes this long after a cancel
	Exit        bool          // the native process exits after the first word
	Retire      bool          // completes, but the native session cannot continue
	Late        string        // one more native callback after the Turn ended
	RefuseStart bool          // StartTurn fails before submitting input
	LoseStart   bool          // StartTurn submits input, then fails
}

// Engine is the native side: it creates native sessions, hands each
// StartTurn the next queued Behaviour and keeps the ground truth.
type Engine struct {
	mu         sync.Mutex
	next       []Behaviour
	failCloses int
	sessions   int
	closed     int
	applied    []string
}

// NewEngine returns an engine whose Turns echo at once.
func NewEngine() *Engine { return &Engine{} }

// Next queues behaviours for the next Turns.
func (e *Engine) Next(b ...Behaviour) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.next = append(e.next, b...)
}

// FailNextClose makes the next Executor.Close fail.
func (e *Engine) FailNextClose() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.failCloses++
}

// Applied reports whether the native side consumed text.
func (e *Engine) Applied(text string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Contains(e.applied, text)
}

// Truth fingerprints everything the native side did.
func (e *Engine) Truth() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return fmt.Sprintf("sessions=%d closed=%d applied=%q", e.sessions, e.closed, e.applied)
}

func (e *Engine) behaviour() Behaviour {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.next) == 0 {
		return Behaviour{}
	}
	b := e.next[0]
	e.next = e.next[1:]
	return b
}

func (e *Engine) apply(text string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.applied = append(e.applied, text)
}

func (e *Engine) takeCloseFailure() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.failCloses == 0 {
		return false
	}
	e.failCloses--
	return true
}

// NewExecutor opens a native session without model input.
func (e *Engine) NewExecutor(ctx context.Context, cfg agent.ExecutorConfig) (agent.Executor, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if cfg.SessionID == "" || (cfg.Configuration.AgentKind != "" && cfg.Configuration.AgentKind != Kind) {
		return nil, fmt.Errorf("%w: session or kind", agent.ErrInvalidConfiguration)
	}
	if len(cfg.Configuration.FunctionTools) > 0 || cfg.Configuration.LocalEnvironment != nil {
		return nil, agent.Unsupported(reasonNotQualified)
	}
	if err := Declaration(e).Configuration.ValidateOptions(cfg.Configuration.AgentOptions); err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.sessions++
	id := fmt.Sprintf("wordecho-%d", e.sessions)
	e.mu.Unlock()
	return &Executor{engine: e, native: id}, nil
}

// StartSession is the direct-call path: one Turn on a fresh Executor,
// closed once the Turn settled.
func (e *Engine) StartSession(ctx context.Context, cfg agent.ExecutorConfig, req agent.TurnRequest) (agent.Session, error) {
	ex, err := e.NewExecutor(ctx, cfg)
	if err != nil {
		return nil, err
	}
	t, err := ex.StartTurn(ctx, req)
	if t == nil {
		_ = ex.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	go func() {
		if _, err := t.AwaitSettlement(context.Background()); err == nil {
			_ = ex.Close(context.Background())
		}
	}()
	return t, err
}
