package runner_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/daemon/transport"
	"github.com/turnstile-sim/turnstile/wire"
)

// A heartbeat goes out the instant the connection is up and then every
// heartbeat_seconds of the bootstrap, with ts in Unix seconds and the
// registry's kinds.
func TestHeartbeatAtConnectAndEveryInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, options{heartbeatSeconds: 7})
		connected := time.Now()
		var at []time.Time
		for range 4 {
			_, hb := expectPayload[wire.Heartbeat](e)
			at = append(at, time.Now())
			if hb.TS != time.Now().Unix() {
				t.Fatalf("ts %d, want Unix seconds %d", hb.TS, time.Now().Unix())
			}
			if len(hb.SupportedAgentKinds) != 1 || hb.SupportedAgentKinds[0].Kind != synthetic.Kind || !hb.SupportedAgentKinds[0].Available {
				t.Fatalf("kinds %+v, want synthetic available", hb.SupportedAgentKinds)
			}
			if hb.DaemonVersion != "runner-test" {
				t.Fatalf("daemon_version %q", hb.DaemonVersion)
			}
		}
		if at[0] != connected {
			t.Fatalf("first heartbeat %v after connect, want at once", at[0].Sub(connected))
		}
		for i := 1; i < len(at); i++ {
			if d := at[i].Sub(at[i-1]); d != 7*time.Second {
				t.Fatalf("heartbeat %d came %v after the previous, want 7s", i, d)
			}
		}
	})
}

func TestTurnStreamsDeltasThenDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, options{})
		e.h.Script(synthetic.TurnScript{Deltas: []string{"Hello, ", "world"}, EventInterval: 200 * time.Millisecond,
			Usage: &wire.Usage{InputTokens: ptr(int32(3)), OutputTokens: ptr(int32(2))}})
		e.run("prep-1", "s1", "run-1", "hi")
		deltas, done := e.untilDone("run-1")
		if strings.Join(deltas, "|") != "Hello, |world" {
			t.Fatalf("deltas %q", deltas)
		}
		if done.Content != "Hello, world" || done.Usage == nil || *done.Usage.OutputTokens != 2 {
			t.Fatalf("done %+v", done)
		}
		if done.Metadata == nil || done.Metadata.AgentSessionID == "" {
			t.Fatalf("done without the native session: %+v", done)
		}
		if tr := e.h.Truth(); tr.TurnsStarted != 1 || tr.InputsApplied[0] != "hi" {
			t.Fatalf("truth %+v", tr)
		}
	})
}

func ptr[T any](v T) *T { return &v }

// A durable steer gets `written` when the native write completes and
// `accepted` once the Turn applied it, in that order.
func TestSteerReceiptsWrittenThenAccepted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, options{})
		e.h.Script(synthetic.TurnScript{Hold: true, SteerApplyLatency: 3 * time.Second})
		e.run("prep-1", "s1", "run-1", "start")
		e.send("run-1", wire.PromptSteer{InputID: "in-1", Input: wire.TextInput("more"), DurableReceipt: true})
		sent := time.Now()
		id, ack := expectPayload[wire.PromptSteerAck](e)
		if id != "run-1" || ack.InputID != "in-1" || !ack.Written || ack.Accepted || ack.ErrorCode != "" {
			t.Fatalf("first receipt %s %+v, want written", id, ack)
		}
		if time.Since(sent) != 0 {
			t.Fatalf("written after %v", time.Since(sent))
		}
		// The accepted receipt and the Turn's output of the applied input
		// come from two native goroutines: either may be first.
		var accepted, streamed bool
		for !accepted || !streamed {
			f, err := e.s.Recv(e.ctx)
			if err != nil {
				t.Fatal(err)
			}
			switch p := f.Payload.(type) {
			case wire.Heartbeat:
			case wire.PromptSteerAck:
				if accepted || !p.Written || !p.Accepted || p.InputID != "in-1" {
					t.Fatalf("second receipt %+v, want one accepted", p)
				}
				accepted = true
			case wire.Delta:
				if streamed || p.Delta != "more" {
					t.Fatalf("applied input streamed %q", p.Delta)
				}
				streamed = true
			default:
				t.Fatalf("unexpected %s", wire.Describe(f))
			}
			if d := time.Since(sent); d != 3*time.Second {
				t.Fatalf("%s after %v, want the 3s native apply latency", f.Type(), d)
			}
		}
		if tr := e.h.Truth(); len(tr.InputsApplied) != 2 || tr.InputsApplied[1] != "more" {
			t.Fatalf("native inputs %q", tr.InputsApplied)
		}
	})
}

// A cancel with a delivery ID is applied=true only after settlement,
// carrying the continuity outcome; the executor stays for reuse.
func TestCancelAppliedWithContinuityOutcome(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, options{})
		e.h.Script(synthetic.TurnScript{Deltas: []string{"partial"}, Hold: true, CancelLatency: 2 * time.Second})
		e.run("prep-1", "s1", "run-1", "start")
		_, d := expectPayload[wire.Delta](e)
		if d.Delta != "partial" {
			t.Fatalf("delta %q", d.Delta)
		}
		e.send("run-1", wire.PromptCancel{DeliveryID: "cancel:run-1"})
		sent := time.Now()
		_, done := expectPayload[wire.Done](e)
		_, ack := expectPayload[wire.InteractionDecisionAck](e)
		if time.Since(sent) != 2*time.Second {
			t.Fatalf("receipt after %v, want after the 2s native settlement", time.Since(sent))
		}
		if !ack.Applied || ack.DeliveryID != "cancel:run-1" || ack.Outcome == nil || ack.Outcome.Content != "partial" {
			t.Fatalf("cancel receipt %+v", ack)
		}
		if done.Content != "partial" {
			t.Fatalf("done %+v", done)
		}
		if tr := e.h.Truth(); tr.ExecutorsClosed != 0 {
			t.Fatalf("a cancel closed the executor: %+v", tr)
		}
	})
}

// A cancel the adapter does not settle within the 10 s settlement wait
// answers applied=false cancel_failed; the Turn stays owned and is
// finished when the native side settles at last.
func TestCancelNotSettledKeepsTurnOwned(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, options{})
		e.h.Script(synthetic.TurnScript{Hold: true, CancelLatency: time.Minute})
		e.run("prep-1", "s1", "run-1", "start")
		e.send("run-1", wire.PromptCancel{DeliveryID: "cancel:run-1"})
		sent := time.Now()
		_, ack := expectPayload[wire.InteractionDecisionAck](e)
		if ack.Applied || ack.ErrorCode != "cancel_failed" || time.Since(sent) != 10*time.Second {
			t.Fatalf("receipt %+v after %v, want cancel_failed after 10s", ack, time.Since(sent))
		}
		_, done := expectPayload[wire.Done](e)
		if time.Since(sent) != time.Minute {
			t.Fatalf("done after %v, want at the native settlement (1m)", time.Since(sent))
		}
		_ = done
	})
}

// An admission never started expires five minutes after the grant; its
// executor goes back to idle and is closed at idle expiry.
func TestAdmissionExpiresAfterFiveMinutes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, options{})
		granted := time.Now()
		st := e.ready("prep-1", "s1")
		if want := granted.Add(5 * time.Minute).UnixMilli(); st.ExpiresAt != want {
			t.Fatalf("expires_at %d, want %d", st.ExpiresAt, want)
		}
		e.status(wire.StateExpired)
		if d := time.Since(granted); d != 5*time.Minute {
			t.Fatalf("expired after %v, want 5m", d)
		}
		e.send("prep-1", wire.ExecutionStart{ExecutorID: st.ExecutorID, Handle: st.Handle, RunID: "run-1", Input: wire.TextInput("late")})
		if late := e.status(wire.StateExpired); late.Handle != st.Handle {
			t.Fatalf("late start answered %+v", late)
		}
		for e.h.Truth().ExecutorsClosed == 0 {
			expectPayload[wire.Heartbeat](e)
			if time.Since(granted) > 16*time.Minute {
				t.Fatalf("executor of the expired admission never closed: %+v", e.h.Truth())
			}
		}
		if d := time.Since(granted); d < 15*time.Minute {
			t.Fatalf("executor closed after %v, before the 10m idle expiry", d)
		}
		if tr := e.h.Truth(); tr.TurnsStarted != 0 || tr.ExecutorsCreated != 1 {
			t.Fatalf("truth %+v", tr)
		}
	})
}

// device_shutdown runs the machine's shutdown path: the idle executor is
// closed and the daemon ends complete.
func TestDeviceShutdownFrameEndsTheDaemon(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, options{})
		e.run("prep-1", "s1", "run-1", "echo")
		e.untilDone("run-1")
		e.send("", wire.DeviceShutdown{Reason: "maintenance"})
		r := e.wait()
		if r.err != nil || !r.r.Complete || !strings.Contains(r.r.Reason, "device_shutdown") {
			t.Fatalf("ended %+v %v", r.r, r.err)
		}
		if tr := e.h.Truth(); tr.ExecutorsClosed != 1 {
			t.Fatalf("truth %+v", tr)
		}
	})
}

// Close code 4001 mid-turn is permanent: the Turn is cancelled and
// settled, its executor closed, and Run returns the error with its fix.
func TestRetiredDeviceStopsAfterCleanup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, options{})
		e.h.Script(synthetic.TurnScript{Hold: true})
		e.run("prep-1", "s1", "run-1", "start")
		e.s.Close(transport.CloseRetired, "runtime retired")
		r := e.wait()
		var perm *transport.PermanentError
		if !errors.As(r.err, &perm) || !strings.Contains(perm.Fix, "enrol a new device ID") {
			t.Fatalf("ended %+v %v, want the permanent 4001 error", r.r, r.err)
		}
		if !r.r.Complete {
			t.Fatalf("cleanup incomplete: %+v", r.r.Owned)
		}
		if tr := e.h.Truth(); tr.ExecutorsClosed != 1 || e.core.Dials() != 1 {
			t.Fatalf("truth %+v after %d dials", tr, e.core.Dials())
		}
	})
}

// A wrong protocol version ends the daemon after one upgrade attempt.
func TestIncompatibleVersionEndsAfterOneAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, options{version: "0.0.1", noConnect: true})
		r := e.wait()
		var he *transport.HTTPError
		if !errors.As(r.err, &he) || he.Status != http.StatusUpgradeRequired || transport.Permanent(r.err) == nil {
			t.Fatalf("ended %v, want a permanent 426", r.err)
		}
		if e.core.Dials() != 1 {
			t.Fatalf("%d upgrade attempts", e.core.Dials())
		}
	})
}

// Shutdown while Core cannot be reached ends Run at once: bootstrap is
// still retrying and nothing is owned.
func TestShutdownDuringBootstrapRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, options{noConnect: true, bootstrapDown: true})
		<-time.After(30 * time.Second) // fake time: several retries
		if n := e.core.Bootstraps(); n < 3 {
			t.Fatalf("%d bootstrap attempts in 30s", n)
		}
		e.d.Shutdown("operator")
		start := time.Now()
		r := e.wait()
		if r.err != nil || !r.r.Complete || r.r.Reason != "operator" || time.Since(start) != 0 {
			t.Fatalf("ended %+v %v after %v", r.r, r.err, time.Since(start))
		}
	})
}
