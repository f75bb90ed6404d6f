package contracttest

import (
	"errors"
	"fmt"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// ErrViolation is wrapped by every problem a Test function reports.
var ErrViolation = errors.New("contract violation")

// Fixture describes the adapter under test and the controls its native
// fixture offers. Optional hooks that are nil skip the checks needing them;
// Hold is required by TestCancel.
type Fixture struct {
	// Config prepares every Executor of the run.
	Config agent.ExecutorConfig
	// Capabilities is the kind's declaration; a declared operation that
	// answers ErrUnsupportedOperation is a violation.
	Capabilities wire.AgentKindCapabilities
	// Input is a text input that completes naturally. Default: one message.
	Input wire.MessageInput
	// Hold arms the next Turn to keep running until it is cancelled.
	Hold func()
	// FailStartBeforeInput arms the next StartTurn to fail before input.
	FailStartBeforeInput func()
	// FailStartAfterInput arms the next StartTurn to fail after input.
	FailStartAfterInput func()
	// FailClose arms the next Close to fail once.
	FailClose func()
	// Effects fingerprints the native ground truth (what was really
	// applied, created or closed); unsupported operations must not change it.
	Effects func() string
	// Window bounds each "nothing happens" observation. Default 100ms.
	Window time.Duration
	// Timeout bounds each blocking call. Default 10s.
	Timeout time.Duration
}

func (fx Fixture) withDefaults() Fixture {
	if fx.Input == nil {
		fx.Input = wire.TextInput("contract test input")
	}
	if fx.Window <= 0 {
		fx.Window = 100 * time.Millisecond
	}
	if fx.Timeout <= 0 {
		fx.Timeout = 10 * time.Second
	}
	return fx
}

// TextLifecycle runs every Test function of this package and joins their
// reports.
func TextLifecycle(f agent.ExecutorFactory, fx Fixture) error {
	return errors.Join(
		TestLifecycle(f, fx),
		TestStartRule(f, fx),
		TestCancel(f, fx),
		TestUnsupported(f, fx),
		TestClose(f, fx),
	)
}

// report aggregates the problems of one Test function.
type report struct {
	name string
	errs []error
}

func (r *report) errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf("%w: %s: %s", ErrViolation, r.name, fmt.Sprintf(format, args...)))
}

func (r *report) err() error { return errors.Join(r.errs...) }
