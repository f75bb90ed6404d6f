package runner_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/daemon/runner"
	"github.com/turnstile-sim/turnstile/wire"
)

// A panicking preparation is that preparation's failure; the daemon
// keeps serving.
func TestPanickingPrepareFailsThePreparation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{panicPrepare: true}
		e := newEnv(t, options{executors: f})
		e.send("prep-1", prepareFor("s1"))
		e.status(wire.StatePreparing)
		st := e.status(wire.StateFailed)
		if st.ErrorCode != "preparation_failed" {
			t.Fatalf("failed with %q", st.ErrorCode)
		}
		f.mu.Lock()
		f.panicPrepare = false
		f.mu.Unlock()
		e.ready("prep-2", "s2")
		if !strings.Contains(e.logs.String(), "prepare exploded") {
			t.Fatalf("the panic is not in the log:\n%s", e.logs.String())
		}
	})
}

// A panicking StartTurn may have submitted input: the Turn is reported
// started with an error, then done, and its executor is closed (a
// panicking Close is retried until it confirms).
func TestPanickingStartFailsTheTurnAndClosesTheExecutor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{panicStart: true, panicCloses: 1}
		e := newEnv(t, options{executors: f})
		e.run("prep-1", "s1", "run-1", "hi")
		_, rerr := expectPayload[wire.RunError](e)
		if rerr.Error != "adapter panicked while starting the turn" {
			t.Fatalf("run error %q", rerr.Error)
		}
		expectPayload[wire.Done](e)
		if _, calls, closes := f.counts(); calls != 2 || closes != 1 {
			t.Fatalf("%d close calls, %d confirmed; want a panicking one, then a confirmed retry", calls, closes)
		}
	})
}

// A panicking durable write has an unknown outcome: the receipt says so
// and the Turn carries on.
func TestPanickingSteerIsOutcomeUnknown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{panicSteer: true, hold: true}
		e := newEnv(t, options{executors: f})
		e.run("prep-1", "s1", "run-1", "hi")
		e.send("run-1", wire.PromptSteer{InputID: "in-1", Input: wire.TextInput("more"), DurableReceipt: true})
		_, ack := expectPayload[wire.PromptSteerAck](e)
		if ack.InputID != "in-1" || ack.Written || ack.Accepted || ack.ErrorCode != "outcome_unknown" {
			t.Fatalf("receipt %+v, want outcome_unknown", ack)
		}
		e.send("run-1", wire.PromptCancel{DeliveryID: "cancel:run-1"})
		expectPayload[wire.Done](e)
		if _, ack := expectPayload[wire.InteractionDecisionAck](e); !ack.Applied {
			t.Fatalf("cancel receipt %+v", ack)
		}
	})
}

// The output channel holds 64 events and its consumer runs before the
// native StartTurn: an adapter that writes 100 events inside StartTurn
// still returns, and Core sees the first 64 in order, then done.
func TestOutputChannelBoundedAndDrainedDuringStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{emit: 100}
		e := newEnv(t, options{executors: f})
		e.run("prep-1", "s1", "run-1", "hi")
		var seqs []uint64
		for {
			fr := e.expect(wire.TypeDelta)
			seqs = append(seqs, fr.Payload.(wire.Delta).Sequence)
			if len(seqs) == 64 {
				break
			}
		}
		for i, s := range seqs {
			if s != uint64(i+1) {
				t.Fatalf("delta %d has sequence %d: %v", i, s, seqs)
			}
		}
		last := seqs[63]
		for {
			fr, err := e.s.Recv(e.ctx)
			if err != nil {
				t.Fatal(err)
			}
			if d, ok := fr.Payload.(wire.Delta); ok {
				if d.Sequence <= last || d.Sequence > 100 {
					t.Fatalf("delta %d after %d", d.Sequence, last)
				}
				last = d.Sequence
				continue
			}
			if _, ok := fr.Payload.(wire.Done); ok {
				break
			}
		}
		if c, _, _ := f.counts(); c != wire.OutputFramesMax {
			t.Fatalf("output channel capacity %d, want %d", c, wire.OutputFramesMax)
		}
	})
}

// Shutdown retries a failing close until it confirms, within the grace.
func TestShutdownRetriesAFailingClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, options{})
		e.run("prep-1", "s1", "run-1", "echo")
		e.untilDone("run-1")
		e.h.FailCloses(2)
		start := time.Now()
		e.d.Shutdown("test")
		r := e.wait()
		if r.err != nil || !r.r.Complete || len(r.r.Owned) != 0 {
			t.Fatalf("ended %+v %v", r.r, r.err)
		}
		if d := time.Since(start); d >= runner.ShutdownGrace {
			t.Fatalf("shutdown took %v", d)
		}
		if tr := e.h.Truth(); tr.CloseFailures != 2 || tr.ExecutorsClosed != 1 {
			t.Fatalf("truth %+v", tr)
		}
		sawFailed := false
		for len(e.reports) > 0 {
			for _, o := range (<-e.reports).Owned {
				sawFailed = sawFailed || strings.Contains(o.State, "close-failed")
			}
		}
		if !sawFailed {
			t.Fatal("no report showed the failed close")
		}
	})
}

// A close that never confirms: after the 10 s grace the daemon ends
// incomplete and says what it still owns.
func TestShutdownGraceReportsWhatIsStillOwned(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, options{})
		e.run("prep-1", "s1", "run-1", "echo")
		e.untilDone("run-1")
		e.h.FailCloses(1 << 20)
		start := time.Now()
		e.d.Shutdown("test")
		r := e.wait()
		if d := time.Since(start); d != runner.ShutdownGrace {
			t.Fatalf("ended after %v, want the %v grace", d, runner.ShutdownGrace)
		}
		if r.err != nil || r.r.Complete || len(r.r.Owned) != 1 || r.r.Owned[0].Kind != "executor" {
			t.Fatalf("ended %+v %v, want one executor still owned", r.r, r.err)
		}
		if !strings.Contains(e.logs.String(), "still owned") || !strings.Contains(e.logs.String(), "executor:") {
			t.Fatalf("the log does not say what is owned:\n%s", e.logs.String())
		}
	})
}

func TestInstallRefusesAnInvalidRegistryNamingTheField(t *testing.T) {
	h := synthetic.New()
	good := synthetic.Declaration(h)
	missing := good
	missing.Capabilities.Streaming = wire.CapabilityUnspecified
	renamed := good
	renamed.Kind = "other"
	unconfigured := good
	unconfigured.Discover = func(context.Context, map[string]string, io.Writer) (*agent.Runtime, error) { return nil, nil }
	cases := []struct {
		name    string
		decls   []agent.Declaration
		enabled []string
		want    string
	}{
		{"missing capability", []agent.Declaration{missing}, nil, "capabilities.streaming"},
		{"unknown kind enabled", []agent.Declaration{good}, []string{"codex"}, `kinds: "codex" is not a kind`},
		{"kind enabled twice", []agent.Declaration{good}, []string{"synthetic", "synthetic"}, "enabled twice"},
		{"nothing enabled", []agent.Declaration{good}, []string{}, "no kind enabled"},
		{"discovery changed the kind", []agent.Declaration{renamed}, nil, "discovery changed the declared kind"},
		{"enabled but not configured", []agent.Declaration{unconfigured}, nil, "not configured"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reg, kinds, err := runner.Install(context.Background(), c.decls, c.enabled, nil, io.Discard)
			if !errors.Is(err, runner.ErrRegistry) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Install: %v, want ErrRegistry naming %q", err, c.want)
			}
			if reg != nil || kinds != nil {
				t.Fatal("a refused registry was returned")
			}
		})
	}
	reg, kinds, err := runner.Install(context.Background(), []agent.Declaration{good}, []string{"synthetic"}, nil, io.Discard)
	if err != nil || len(kinds) != 1 || kinds[0].Kind != "synthetic" || !kinds[0].Available {
		t.Fatalf("valid registry: %v %+v", err, kinds)
	}
	if _, ok := reg.Executors("synthetic"); !ok {
		t.Fatal("synthetic executor factory not installed")
	}
}

// An adapter call that never returns blocks nothing else: heartbeats keep
// their cadence and another Session is prepared meanwhile; shutdown then
// reports the outstanding call as still owned.
func TestHungAdapterCallBlocksNothingElse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{hangPrepare: "s-hung"}
		e := newEnv(t, options{executors: f, heartbeatSeconds: 5})
		expectPayload[wire.Heartbeat](e)
		e.send("prep-hung", prepareFor("s-hung"))
		e.status(wire.StatePreparing)
		e.ready("prep-2", "s2")
		start := time.Now()
		expectPayload[wire.Heartbeat](e)
		if d := time.Since(start); d != 5*time.Second {
			t.Fatalf("heartbeat %v after the previous, want 5s", d)
		}
		e.d.Shutdown("test")
		r := e.wait()
		owned := false
		for _, o := range r.r.Owned {
			owned = owned || (o.Kind == "call" && o.State == "prepare")
		}
		if r.r.Complete || !owned {
			t.Fatalf("ended %+v, want the hung prepare still owned", r.r)
		}
	})
}
