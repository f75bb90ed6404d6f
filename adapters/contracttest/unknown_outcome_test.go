package contracttest_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/contracttest"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
)

// errOutcomeUnknown is the uncertain answer of uncertainFactory's receipts.
var errOutcomeUnknown = errors.New("input outcome unknown")

// uncertainFactory wraps the synthetic Harness so that a receipt whose
// Turn settled without applying answers "unknown" instead of
// ErrTurnInactive, as a native side that cannot tell a dropped input from
// a recorded one must.
type uncertainFactory struct{ h *synthetic.Harness }

func (f uncertainFactory) NewExecutor(ctx context.Context, cfg agent.ExecutorConfig) (agent.Executor, error) {
	ex, err := f.h.NewExecutor(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return uncertainExecutor{ex.(*synthetic.Executor)}, nil
}

type uncertainExecutor struct{ *synthetic.Executor }

func (e uncertainExecutor) StartTurn(ctx context.Context, req agent.TurnRequest) (agent.Turn, error) {
	t, err := e.Executor.StartTurn(ctx, req)
	if t == nil {
		return nil, err
	}
	return uncertainTurn{t.(*synthetic.Turn)}, err
}

type uncertainTurn struct{ *synthetic.Turn }

func (t uncertainTurn) SteerDurable(ctx context.Context, in agent.SteerInput) (agent.AppliedReceipt, error) {
	rc, err := t.Turn.SteerDurable(ctx, in)
	if err != nil {
		return rc, err
	}
	return uncertainReceipt{rc}, nil
}

type uncertainReceipt struct{ agent.AppliedReceipt }

func (r uncertainReceipt) AwaitApplied(ctx context.Context) error {
	err := r.AppliedReceipt.AwaitApplied(ctx)
	if errors.Is(err, agent.ErrTurnInactive) {
		return errOutcomeUnknown
	}
	return err
}

// A receipt that stays uncertain after settlement passes only when the
// fixture names the adapter's uncertain error; any other error is still
// a violation of the clause.
func TestReceiptsUnknownOutcome(t *testing.T) {
	for _, named := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			h := synthetic.New()
			fx := fixture(h)
			fx.Timeout = 30 * time.Second
			if named {
				fx.UnknownOutcome = errOutcomeUnknown
			}
			rep := contracttest.CheckReceipts(uncertainFactory{h}, fx)
			want := "[" + string(contracttest.ClauseUnknownKept) + "] receipts-1: receipt after settlement = input outcome unknown"
			switch {
			case named && rep.Failed():
				t.Fatalf("uncertain outcome named by the fixture was reported:\n%s", rep.Failures())
			case !named && !strings.Contains(rep.Failures(), want):
				t.Fatalf("unnamed uncertain outcome: want %q in:\n%s", want, rep.Failures())
			}
		})
	}
}
