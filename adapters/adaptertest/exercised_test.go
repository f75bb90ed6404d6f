package adaptertest_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/adaptertest"
	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// installed returns the synthetic declaration with edit applied to the
// declared and the installed descriptor alike.
func installed(h *synthetic.Harness, edit func(*wire.SupportedAgentKind)) agent.Declaration {
	d := synthetic.Declaration(h)
	desc := wire.SupportedAgentKind{Capabilities: d.Capabilities}
	edit(&desc)
	d.Capabilities = desc.Capabilities
	discover := d.Discover
	d.Discover = func(ctx context.Context, p map[string]string, w io.Writer) (*agent.Runtime, error) {
		rt, err := discover(ctx, p, w)
		if rt != nil {
			avail := rt.Descriptor.Available
			rt.Descriptor.Available = true
			edit(&rt.Descriptor)
			rt.Descriptor.Available = rt.Descriptor.Available && avail
		}
		return rt, err
	}
	return d
}

// simulate runs one short run without faults and returns its report.
func simulate(t *testing.T, d agent.Declaration, opts adaptertest.Options) *adaptertest.Report {
	t.Helper()
	opts.NoFaults, opts.Seed = true, 7
	if opts.Steps == 0 {
		opts.Steps = 12
	}
	rep, err := adaptertest.Simulate(d, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// wantUnexercised checks rep failed and names chk as exercised zero
// times for why.
func wantUnexercised(t *testing.T, rep *adaptertest.Report, chk, why string) {
	t.Helper()
	if !rep.Failed() || rep.Result(chk).Passed() {
		t.Fatalf("the run passed:\n%s", rep)
	}
	if !slices.Contains(rep.Unexercised(), chk) {
		t.Fatalf("%s is not reported unexercised (%v):\n%s", chk, rep.Unexercised(), rep)
	}
	r := rep.Result(chk)
	if r.Exercised != 0 || len(r.Failures) != 1 || !strings.Contains(r.Failures[0], why) {
		t.Fatalf("%s: exercised %d, failures %q; want one naming %q", chk, r.Exercised, r.Failures, why)
	}
	if !strings.Contains(rep.Failures(), "["+r.Clause+"] not exercised: ") {
		t.Fatalf("the failures do not name the clause %q:\n%s", r.Clause, rep.Failures())
	}
}

// A declaration that disables a capability Core always requires: Core
// refuses every Turn, no Run starts, and the run fails naming the clause
// and the capability.
func TestMandatoryCapabilityDisabledFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := installed(synthetic.New(), func(k *wire.SupportedAgentKind) {
			k.Capabilities.Steering = wire.CapabilityUnsupported
		})
		rep := simulate(t, d, adaptertest.Options{})
		if rep.RunsStarted != 0 || rep.Turns == 0 {
			t.Fatalf("%d Runs started of %d Turns", rep.RunsStarted, rep.Turns)
		}
		why := "Core refused every Turn: capability `steering` not declared"
		wantUnexercised(t, rep, check.CheckRunStartedTwice, why)
		wantUnexercised(t, rep, adaptertest.CheckNothingOwned, why)
		if !strings.Contains(rep.String(), "FAIL a Run becomes one native Turn (run_started_twice): not exercised: "+why) {
			t.Fatalf("the report line does not say why:\n%s", rep)
		}
	})
}

// A kind the Core profile does not qualify: Core refuses every Session.
func TestRefusedKindFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rep := simulate(t, synthetic.Declaration(synthetic.New()),
			adaptertest.Options{Policy: enginetest.OpenPolicy("another-kind")})
		if rep.Sessions != 0 || rep.SessionsRefused == 0 {
			t.Fatalf("%d Sessions created, %d refused", rep.Sessions, rep.SessionsRefused)
		}
		wantUnexercised(t, rep, check.CheckRunStartedTwice, "Core refused every Session: create a Session: ")
		wantUnexercised(t, rep, adaptertest.CheckTurnEnds, "Core refused every Session")
	})
}

// A kind installed but unavailable: Turns are admitted and wait, no Run
// starts, and the run fails naming the clause and what became of them.
func TestZeroRunsFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := installed(synthetic.New(), func(k *wire.SupportedAgentKind) { k.Available = false })
		rep := simulate(t, d, adaptertest.Options{Steps: 4, Deadline: time.Minute})
		if rep.RunsStarted != 0 || rep.Turns == 0 {
			t.Fatalf("%d Runs started of %d Turns", rep.RunsStarted, rep.Turns)
		}
		wantUnexercised(t, rep, check.CheckRunStartedTwice,
			"Core started no Run: all "+strconv.Itoa(rep.Turns)+" Turns ended queued")
		wantUnexercised(t, rep, check.CheckInputDeliveredTwice, "Core started no Run")
	})
}

// Clauses marked not applicable pass with their reason printed; the
// others still have to be exercised.
func TestNotApplicableReasonIsPrinted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const why = "this run steers nothing"
		rep := simulate(t, synthetic.Declaration(synthetic.New()), adaptertest.Options{Steps: 1,
			NotApplicable: map[string]string{check.CheckInputDeliveredTwice: why, check.CheckAcceptedWithoutTruth: why}})
		if rep.Failed() {
			t.Fatalf("the run failed:\n%s", rep.Failures())
		}
		r := rep.Result(check.CheckInputDeliveredTwice)
		if r.Exercised != 0 || r.NotApplicable != why || !r.Passed() {
			t.Fatalf("marked clause: %+v", r)
		}
		if !strings.Contains(rep.String(), "n/a  an input is applied once (input_delivered_twice): not applicable: "+why) {
			t.Fatalf("the report does not print the reason:\n%s", rep)
		}
	})
}

func TestNotApplicableNeedsAClauseAndAReason(t *testing.T) {
	for name, na := range map[string]map[string]string{
		"unknown clause": {"no_such_clause": "a reason"},
		"no reason":      {check.CheckInputDeliveredTwice: " "},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				_, err := adaptertest.Simulate(synthetic.Declaration(synthetic.New()), adaptertest.Options{NotApplicable: na}, nil)
				if !errors.Is(err, adaptertest.ErrOptions) {
					t.Fatalf("err = %v, want ErrOptions", err)
				}
			})
		})
	}
}
