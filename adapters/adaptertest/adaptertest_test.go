package adaptertest_test

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/adaptertest"
	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
)

// slowTurns scripts every synthetic Turn to stream for a while and to
// apply steered input late, so that steering and cancels reach live Turns.
func slowTurns(h *synthetic.Harness) func(*rand.Rand) {
	return func(r *rand.Rand) {
		h.Script(synthetic.TurnScript{Deltas: []string{"a", "b", "c"}, EventInterval: time.Duration(1+r.IntN(3)) * time.Second,
			SteerApplyLatency: time.Second})
	}
}

func TestSyntheticPassesManySeeds(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		synctest.Test(t, func(t *testing.T) {
			h := synthetic.New()
			rep, err := adaptertest.Simulate(synthetic.Declaration(h), adaptertest.Options{Seed: seed, BeforeTurn: slowTurns(h)}, nil)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if rep.Failed() {
				t.Fatalf("seed %d:\n%s", seed, rep.Failures())
			}
		})
	}
}

func TestSameSeedSameReport(t *testing.T) {
	var reports []string
	for range 2 {
		synctest.Test(t, func(t *testing.T) {
			h := synthetic.New()
			rep, err := adaptertest.Simulate(synthetic.Declaration(h), adaptertest.Options{Seed: 5, BeforeTurn: slowTurns(h)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			reports = append(reports, rep.String())
		})
	}
	if reports[0] != reports[1] {
		t.Fatalf("seed 5 gave two reports:\n%s\n%s", reports[0], reports[1])
	}
}

// unclosable is an adapter whose Executors never confirm Close.
type unclosable struct{ h *synthetic.Harness }

func (u unclosable) NewExecutor(ctx context.Context, cfg agent.ExecutorConfig) (agent.Executor, error) {
	ex, err := u.h.NewExecutor(ctx, cfg)
	if ex == nil {
		return nil, err
	}
	return failingClose{ex.(*synthetic.Executor)}, err
}

type failingClose struct{ *synthetic.Executor }

func (failingClose) Close(context.Context) error { return errors.New("native process would not stop") }

func TestAdapterThatNeverClosesIsCaught(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		d := synthetic.Declaration(h)
		discover := d.Discover
		d.Discover = func(ctx context.Context, p map[string]string, w io.Writer) (*agent.Runtime, error) {
			rt, err := discover(ctx, p, w)
			rt.Executors = unclosable{h}
			return rt, err
		}
		rep, err := adaptertest.Simulate(d, adaptertest.Options{Seed: 3, NoFaults: true, Steps: 10}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []string{adaptertest.CheckNothingOwned, adaptertest.CheckShutdownComplete} {
			if r := rep.Result(c); len(r.Failures) == 0 {
				t.Errorf("%s passed against an adapter that never closes:\n%s", c, rep)
			}
		}
		if !strings.Contains(rep.Failures(), "executor e1 was never confirmed closed") {
			t.Errorf("report does not name the executor:\n%s", rep.Failures())
		}
	})
}
