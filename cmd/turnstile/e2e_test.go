package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/daemon/transport"
	"github.com/turnstile-sim/turnstile/wire"
)

// collect reads the stream until it ends and returns the event names and
// the data of the deltas, concatenated.
func collect(t *testing.T, ch <-chan e2eEvent) ([]string, string, []e2eEvent) {
	t.Helper()
	var names []string
	var text strings.Builder
	var all []e2eEvent
	for ev := range ch {
		names = append(names, ev.Event)
		all = append(all, ev)
		if ev.Event == api.EvOutputTextDelta {
			var d wire.Delta
			if err := json.Unmarshal([]byte(ev.Data), &d); err != nil {
				t.Fatal(err)
			}
			text.WriteString(d.Delta)
		}
	}
	return names, text.String(), all
}

// A Turn started through /v1 streams its deltas through the daemon; the
// outcome is persisted and the Turn's stream ends with turn.completed.
func TestEndToEndTurnStreamsAndPersists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		s := newStack(t, stackOptions{dir: dir})
		s.h.Script(synthetic.TurnScript{Deltas: []string{"Hello, ", "world"}, EventInterval: 100 * time.Millisecond})
		sid := s.session()
		tid := s.submit(sid, "hi")
		names, text, _ := collect(t, s.events(tid))
		if got := strings.Join(names, ","); got != api.EvOutputTextDelta+","+api.EvOutputTextDelta+","+api.EvTurnCompleted {
			t.Fatalf("events %s; turn %+v\n%s", got, s.turn(tid), s.logs.String())
		}
		if text != "Hello, world" {
			t.Fatalf("streamed %q", text)
		}
		tr := s.turn(tid)
		if tr.State != "completed" || tr.Content != "Hello, world" {
			t.Fatalf("turn %+v", tr)
		}
		if truth := s.h.Truth(); truth.TurnsStarted != 1 || truth.InputsApplied[0] != "hi" {
			t.Fatalf("native truth %+v", truth)
		}
		s.restartCore(dir)
		if again := s.turn(tid); again.State != "completed" || again.Content != "Hello, world" || again.Events != tr.Events {
			t.Fatalf("after a restart on the same store: %+v, was %+v", again, tr)
		}
	})
}

// Steered inputs get `written`, then `accepted`, both recorded by Core.
func TestEndToEndSteerWrittenThenAccepted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStack(t, stackOptions{})
		s.h.Script(synthetic.TurnScript{Deltas: []string{"working"}, Hold: true, SteerApplyLatency: 2 * time.Second})
		sid := s.session()
		tid := s.submit(sid, "start")
		ch := s.events(tid)
		if ev := e2eNext(t, ch); ev.Event != api.EvOutputTextDelta {
			t.Fatalf("first event %s", ev.Event)
		}
		s.steer(sid, "more")
		sent := time.Now()
		synctest.Wait()
		if st := s.turn(tid).Inputs[0].State; st != "written" {
			t.Fatalf("input %s right after the write, want written", st)
		}
		if ev := e2eNext(t, ch); ev.Event != api.EvOutputTextDelta || !strings.Contains(ev.Data, "more") {
			t.Fatalf("applied input event %+v", ev)
		}
		if d := time.Since(sent); d != 2*time.Second {
			t.Fatalf("applied after %v", d)
		}
		synctest.Wait()
		if st := s.turn(tid).Inputs[0].State; st != "accepted" {
			t.Fatalf("input %s after the native apply, want accepted", st)
		}
		if truth := s.h.Truth(); len(truth.InputsApplied) != 2 || truth.InputsApplied[1] != "more" {
			t.Fatalf("native inputs %q", truth.InputsApplied)
		}
	})
}

// Cancel mid-turn: the receipt is applied with the continuity outcome and
// the Turn ends cancelled with the content streamed so far.
func TestEndToEndCancelApplied(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStack(t, stackOptions{})
		s.h.Script(synthetic.TurnScript{Deltas: []string{"partial"}, Hold: true, CancelLatency: time.Second})
		sid := s.session()
		tid := s.submit(sid, "start")
		ch := s.events(tid)
		e2eNext(t, ch)
		s.cancel(sid)
		names, _, _ := collect(t, ch)
		if names[len(names)-1] != api.EvTurnCancelled {
			t.Fatalf("events after cancel %v", names)
		}
		tr := s.turn(tid)
		if tr.State != "cancelled" || tr.Content != "partial" {
			t.Fatalf("turn %+v", tr)
		}
		if owned := s.owned(); len(owned) != 1 || owned[0].Kind != "executor" || owned[0].State != "idle" {
			t.Fatalf("daemon owns %v, want only the idle executor", owned)
		}
	})
}

// A cancel the adapter never settles in time: the daemon's settlement
// wait (10 s) answers cancel_failed, Core records cancel_unconfirmed
// (inside its 15 s confirmation window), and the daemon keeps the Turn
// owned.
func TestEndToEndCancelNeverSettled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStack(t, stackOptions{})
		// The native end comes 18 s after the cancel: past the daemon's
		// settlement wait and Core's confirmation window, but within the
		// shutdown grace of the cleanup, so the bubble ends clean.
		s.h.Script(synthetic.TurnScript{Deltas: []string{"stuck"}, Hold: true, CancelLatency: 18 * time.Second})
		sid := s.session()
		tid := s.submit(sid, "start")
		ch := s.events(tid)
		e2eNext(t, ch)
		s.cancel(sid)
		sent := time.Now()
		collect(t, ch)
		// The daemon's 10 s settlement wait answers cancel_failed first;
		// Core records that as cancel_unconfirmed, before its own 15 s
		// confirmation window would have.
		if d := time.Since(sent); d != 10*time.Second {
			t.Fatalf("Turn ended %v after the cancel, want at the daemon's 10s settlement wait", d)
		}
		tr := s.turn(tid)
		if tr.State != "failed" || tr.ErrorCode != "cancel_unconfirmed" {
			t.Fatalf("turn %+v", tr)
		}
		owned := s.owned()
		turns := 0
		for _, r := range owned {
			if r.Kind == "turn" {
				turns++
			}
		}
		if turns != 1 {
			t.Fatalf("daemon owns %v, want the unsettled Turn", owned)
		}
	})
}

// The connection cut mid-turn: Core fails the Turn with
// event_stream_incomplete; the daemon cancels and settles it natively,
// closes the executor (bound to the lost connection, it retires with it),
// and the new connection replays nothing (the Turn stays failed).
func TestEndToEndConnectionCutMidTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStack(t, stackOptions{})
		s.h.Script(synthetic.TurnScript{Deltas: []string{"before the cut"}, Hold: true})
		tid := s.submit(s.session(), "start")
		ch := s.events(tid)
		e2eNext(t, ch)
		cut := time.Now()
		s.link.Cut()
		names, _, all := collect(t, ch)
		if len(names) == 0 {
			t.Fatal("stream ended without a word")
		}
		tr := s.turn(tid)
		if tr.State != "failed" || (tr.ErrorCode != "event_stream_incomplete" && tr.ErrorCode != "delivery_unknown") {
			t.Fatalf("turn %+v after the cut (events %v)", tr, all)
		}
		// Five seconds of the bubble's fake time: the daemon reconnects
		// (backoff at most 2 s) and heartbeats again.
		<-time.After(5 * time.Second)
		synctest.Wait()
		var devs struct{ Devices []api.DeviceJSON }
		s.call("GET", "/core/v1/devices", nil, &devs)
		if len(devs.Devices) != 1 || !devs.Devices[0].Connected || !devs.Devices[0].LastHeartbeatAt.After(cut) {
			t.Fatalf("devices %+v, want the daemon reconnected and heartbeating", devs)
		}
		if owned := s.owned(); len(owned) != 0 {
			t.Fatalf("daemon owns %v, want nothing: the lost connection's executor is closed", owned)
		}
		if again := s.turn(tid); again.State != "failed" || again.Events != tr.Events || again.Content != tr.Content {
			t.Fatalf("turn changed after the reconnect: %+v, was %+v", again, tr)
		}
		if truth := s.h.Truth(); truth.TurnsStarted != 1 || truth.ExecutorsClosed != 1 {
			t.Fatalf("native truth %+v", truth)
		}
	})
}

// A daemon with another protocol version exits with the 426 message after
// one attempt, without waiting.
func TestEndToEndWrongVersionExits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		s := newStack(t, stackOptions{version: "0.0.0-wrong"})
		end := s.waitDaemon()
		var he *transport.HTTPError
		if !errors.As(end.err, &he) || he.Status != http.StatusUpgradeRequired || he.Code != "incompatible_version" {
			t.Fatalf("daemon ended with %v", end.err)
		}
		if !strings.Contains(end.err.Error(), "upgrade the daemon or Core") {
			t.Fatalf("message %q does not say what to fix", end.err)
		}
		if d := time.Since(start); d != 0 {
			t.Fatalf("gave up after %v: retried", d)
		}
	})
}

// A revoked device is closed with 4001 and the daemon exits on it.
func TestEndToEndRevokedDeviceExits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStack(t, stackOptions{})
		tid := s.submit(s.session(), "hi")
		collect(t, s.events(tid))
		if err := s.store.RevokeDevice(e2eDevice, time.Now()); err != nil {
			t.Fatal(err)
		}
		end := s.waitDaemon()
		if transport.Permanent(end.err) == nil || !strings.Contains(end.err.Error(), "4001") {
			t.Fatalf("daemon ended with %v", end.err)
		}
		if !end.r.Complete {
			t.Fatalf("cleanup incomplete: %v", end.r.Owned)
		}
	})
}
