package contracttest_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/contracttest"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
)

// TestSyntheticPreparationIsExercised: the synthetic Executor is an
// executable preparation; each prepared clause is exercised and passes,
// and the native ground truth shows the cancel (twice: idempotent) and
// the releases happened.
func TestSyntheticPreparationIsExercised(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		rep := contracttest.CheckPrepared(h, fixture(h))
		if rep.Failed() {
			t.Fatalf("%s\n%s", rep.Failures(), rep)
		}
		for _, c := range contracttest.PreparedClauses() {
			if r := rep.Result(c); r.Exercised == 0 || !r.Passed() {
				t.Errorf("clause %q: %+v", c, r)
			}
		}
		if tr := h.Truth(); tr.PreparationsCancelled != 2 || tr.PreparationsReleased != 4 || tr.ExecutorsClosed != 3 {
			t.Fatalf("truth %+v", tr)
		}
	})
}

// closeOnly hides every method but the Executor's: no executable
// preparation.
type closeOnly struct{ agent.Executor }

type closeOnlyFactory struct{ h *synthetic.Harness }

func (f closeOnlyFactory) NewExecutor(ctx context.Context, cfg agent.ExecutorConfig) (agent.Executor, error) {
	ex, err := f.h.NewExecutor(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return closeOnly{ex}, nil
}

// TestExecutorWithoutPreparationIsNotApplicable: an Executor that
// implements neither interface makes the prepared clauses not
// applicable, and the report says why; nothing fails.
func TestExecutorWithoutPreparationIsNotApplicable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		rep := contracttest.CheckPrepared(closeOnlyFactory{h}, fixture(h))
		if rep.Failed() {
			t.Fatal(rep.Failures())
		}
		for _, c := range contracttest.PreparedClauses() {
			if r := rep.Result(c); r.Exercised != 0 || !strings.Contains(r.NotApplicable, "no executable preparation") || !r.Passed() {
				t.Errorf("clause %q: %+v", c, r)
			}
		}
		if s := rep.String(); !strings.Contains(s, "n/a  "+string(contracttest.ClausePreparedCancel)+": not applicable: the Executor is no executable preparation") {
			t.Fatalf("summary:\n%s", s)
		}
	})
}

// Deliberately broken executable preparations.
type preparedBreak int

const (
	halfPrepared  preparedBreak = iota // Prepared without PreparedCancellation
	cancelIgnored                      // CancelPrepared leaves the preparation startable
	releaseOnce                        // a second Release fails
)

type brokenPreparation struct {
	h    *synthetic.Harness
	mode preparedBreak
}

func (f brokenPreparation) NewExecutor(ctx context.Context, cfg agent.ExecutorConfig) (agent.Executor, error) {
	ex, err := f.h.NewExecutor(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s := ex.(*synthetic.Executor)
	switch f.mode {
	case halfPrepared:
		return releaseOnly{Executor: s, p: s}, nil
	case cancelIgnored:
		return &ignoredCancel{Executor: s}, nil
	}
	return &onceRelease{Executor: s}, nil
}

type releaseOnly struct {
	agent.Executor
	p agent.Prepared
}

func (r releaseOnly) Release(ctx context.Context) error { return r.p.Release(ctx) }

type ignoredCancel struct{ *synthetic.Executor }

func (*ignoredCancel) CancelPrepared(context.Context) error { return nil }

type onceRelease struct {
	*synthetic.Executor
	released bool
}

func (o *onceRelease) Release(ctx context.Context) error {
	if o.released {
		return errors.New("already released")
	}
	o.released = true
	return o.Executor.Release(ctx)
}

// TestBrokenPreparationsFailTheirClause: each breakage fails the prepared
// clause it breaks, naming the step.
func TestBrokenPreparationsFailTheirClause(t *testing.T) {
	cases := []struct {
		mode   preparedBreak
		clause contracttest.Clause
		want   string
	}{
		{halfPrepared, contracttest.ClausePreparedCancel, "implements both agent.Prepared and agent.PreparedCancellation"},
		{cancelIgnored, contracttest.ClausePreparedCancel, "a cancelled preparation started a Turn"},
		{releaseOnce, contracttest.ClausePreparedRelease, "Release again (it is idempotent after success): already released"},
	}
	for _, c := range cases {
		synctest.Test(t, func(t *testing.T) {
			h := synthetic.New()
			rep := contracttest.CheckPrepared(brokenPreparation{h, c.mode}, fixture(h))
			if r := rep.Result(c.clause); r.Passed() || !strings.Contains(strings.Join(r.Failures, "\n"), c.want) {
				t.Errorf("mode %d: clause %q %+v\n%s", c.mode, c.clause, r, rep.Failures())
			}
		})
	}
}

// leakyPreparation's unused preparations report their cancel, release
// and Close as confirmed but keep the native session open.
type leakyPreparation struct{ h *synthetic.Harness }

func (f leakyPreparation) NewExecutor(ctx context.Context, cfg agent.ExecutorConfig) (agent.Executor, error) {
	ex, err := f.h.NewExecutor(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &leakyExecutor{Executor: ex.(*synthetic.Executor)}, nil
}

type leakyExecutor struct {
	*synthetic.Executor
	started bool
}

func (l *leakyExecutor) StartTurn(ctx context.Context, req agent.TurnRequest) (agent.Turn, error) {
	t, err := l.Executor.StartTurn(ctx, req)
	l.started = l.started || t != nil
	return t, err
}

func (l *leakyExecutor) Close(ctx context.Context) error {
	if !l.started {
		return nil
	}
	return l.Executor.Close(ctx)
}

// An unused preparation whose cleanup reports success but leaves its
// native session open fails the clause, naming what is still held.
func TestLeakyPreparationFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		rep := contracttest.CheckPrepared(leakyPreparation{h}, fixture(h))
		r := rep.Result(contracttest.ClausePreparedNothingLeft)
		if r.Passed() || !strings.Contains(strings.Join(r.Failures, "\n"), "still holds") {
			t.Fatalf("a leaking preparation: %+v\n%s", r, rep)
		}
	})
}

// Without Fixture.Owned the clause is not exercised, and the text
// lifecycle fails it naming the hook.
func TestPreparationWithoutOwnedFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		fx := fixture(h)
		fx.Owned = nil
		rep := contracttest.CheckTextLifecycle(h, fx)
		wantUnexercised(t, rep, contracttest.ClausePreparedNothingLeft, "Fixture.Owned is nil")
	})
}
