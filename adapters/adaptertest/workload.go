package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/daemon/runner"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// workload drives the simulated Core's API with a seeded mix of Turns,
// steering and cancels, and injects connection cuts and Core restarts.
type workload struct {
	opts     Options
	r        *rand.Rand
	core     *simCore
	relay    *relay
	rec      *recorder
	sessions []string
	last     map[string]string // Session → its newest Turn
	turns    []string          // every Turn submitted, in order
	n        int               // texts drawn
}

// apiTimeout bounds one API call; a Call during a restart fails fast.
const apiTimeout = 30 * time.Second

func (w *workload) run() error {
	w.rec.setStep(0, "create sessions")
	if err := w.waitConnected(); err != nil {
		return err
	}
	for range w.opts.Sessions {
		if s := w.createSession(); s != "" {
			w.sessions = append(w.sessions, s)
		}
	}
	if len(w.sessions) == 0 {
		return nil // nothing admitted: the report says why
	}
	for step := 1; step <= w.opts.Steps; step++ {
		if err := w.step(step); err != nil {
			return err
		}
		w.pause(time.Duration(w.r.IntN(3000)) * time.Millisecond)
	}
	w.rec.setStep(w.opts.Steps+1, "wait for every Turn to end")
	w.awaitTerminal()
	return nil
}

func (w *workload) kind() string {
	w.rec.mu.Lock()
	defer w.rec.mu.Unlock()
	return w.rec.installed[0].Kind
}

// waitConnected waits until the daemon's first heartbeat reached Core,
// so the first Turns find a Runtime.
func (w *workload) waitConnected() error {
	for range 600 {
		w.rec.mu.Lock()
		n := w.rec.rep.clause(CheckDeclaredOnWire).Exercised
		w.rec.mu.Unlock()
		if n > 0 {
			return nil
		}
		w.pause(100 * time.Millisecond)
	}
	return fmt.Errorf("the daemon never sent a heartbeat")
}

func (w *workload) pause(d time.Duration) {
	t := time.NewTimer(d)
	<-t.C
}

// step draws and performs one action.
func (w *workload) step(n int) error {
	x := w.r.IntN(100)
	faults := !w.opts.NoFaults
	switch {
	case x < 40 || len(w.turns) == 0:
		i := w.r.IntN(len(w.sessions))
		w.rec.setStep(n, "submit a Turn on "+w.sessions[i])
		w.replaceStranded(i)
		s := w.sessions[i]
		if w.opts.BeforeTurn != nil {
			w.opts.BeforeTurn(w.r)
		}
		res, err := w.call(func(c core.CallID) core.Event {
			return core.SubmitTurn{Call: c, Session: s, Input: w.text()}
		})
		if err != nil {
			w.refused(func(r *Report) { r.TurnsRefused++ }, "submit a Turn", err)
			if errors.Is(err, core.ErrSessionUnrecoverable) {
				// Core says the Session cannot continue (its native
				// session cannot be recovered): a new one takes its place.
				if ns := w.createSession(); ns != "" {
					w.sessions[i] = ns
				}
			}
		} else {
			id := res.Value.(core.TurnSubmitted).Turn
			w.turns = append(w.turns, id)
			w.last[s] = id
			w.count(func(r *Report) { r.Turns++ })
		}
	case x < 65:
		// Most steers go to the newest Turn still running, so that input
		// reaches live Runs; the rest to any Turn (a terminal one is
		// refused).
		t := w.turns[w.r.IntN(len(w.turns))]
		if w.r.IntN(4) > 0 {
			t = w.newestOpen(t)
		}
		w.rec.setStep(n, "steer "+t)
		if _, err := w.call(func(c core.CallID) core.Event { return core.SteerInput{Call: c, Turn: t, Input: w.text()} }); err == nil {
			w.count(func(r *Report) { r.Steers++ })
		}
	case x < 80:
		t := w.turns[w.r.IntN(len(w.turns))]
		w.rec.setStep(n, "cancel "+t)
		if _, err := w.call(func(c core.CallID) core.Event { return core.CancelTurn{Call: c, Turn: t} }); err == nil {
			w.count(func(r *Report) { r.Cancels++ })
		}
	case x < 90 && faults:
		w.rec.setStep(n, "cut the daemon's connection")
		w.relay.cut()
		w.count(func(r *Report) { r.Cuts++ })
	case x < 95 && faults:
		w.rec.setStep(n, "restart Core")
		if err := w.core.restart(); err != nil {
			return fmt.Errorf("step %d: restart Core: %w", n, err)
		}
		w.count(func(r *Report) { r.Restarts++ })
	default:
		w.rec.setStep(n, "let time pass")
		w.pause(time.Duration(1+w.r.IntN(20)) * time.Second)
	}
	return nil
}

// createSession creates one Session, or counts Core's refusal and
// returns "".
func (w *workload) createSession() string {
	res, err := w.call(func(c core.CallID) core.Event {
		return core.CreateSession{Call: c, Agent: core.AgentConfig{Kind: w.kind(), Model: w.opts.Model, Environment: core.EnvNone}}
	})
	if err != nil {
		w.refused(func(r *Report) { r.SessionsRefused++ }, "create a Session", err)
		return ""
	}
	w.count(func(r *Report) { r.Sessions++ })
	return res.Value.(core.SessionCreated).Session
}

// replaceStranded replaces Session i by a new one when Core refused its
// newest Turn for native_session_recovery: a Session whose native identity was lost
// in a fault needs native_session_recovery, and an adapter that does not
// declare it can run no further Turn there, as a client would find.
func (w *workload) replaceStranded(i int) {
	t, ok := w.last[w.sessions[i]]
	if !ok {
		return
	}
	res, err := w.call(func(c core.CallID) core.Event { return core.ReadTurn{Call: c, Turn: t} })
	v, _ := res.Value.(*core.TurnView)
	if err != nil || v == nil || v.ErrorCode != core.CodeCapabilityUnsupported ||
		v.ErrorDetail != "native_session_recovery" {
		return
	}
	if s := w.createSession(); s != "" {
		w.sessions[i] = s
	}
}

// refused counts a refusal of Core and keeps the first one's text.
func (w *workload) refused(f func(*Report), what string, err error) {
	w.count(func(r *Report) {
		f(r)
		if r.FirstRefusal == "" {
			r.FirstRefusal = what + ": " + err.Error()
		}
	})
}

func (w *workload) count(f func(*Report)) {
	w.rec.mu.Lock()
	defer w.rec.mu.Unlock()
	f(w.rec.rep)
}

// call runs one API event with the call budget.
func (w *workload) call(ev func(core.CallID) core.Event) (core.APIResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	return w.core.call(ctx, ev)
}

func (w *workload) text() wire.MessageInput {
	w.n++
	return wire.TextInput("workload input " + strconv.Itoa(w.n))
}

// awaitTerminal reads every Turn until all are terminal or the deadline
// passed; each Turn still open then fails the liveness clause.
func (w *workload) awaitTerminal() {
	deadline := time.Now().Add(w.opts.Deadline)
	open := slices.Clone(w.turns)
	for len(open) > 0 && time.Now().Before(deadline) {
		open = slices.DeleteFunc(open, func(t string) bool { return check.IsTerminal(w.state(t)) })
		if len(open) > 0 {
			w.pause(time.Second)
		}
	}
	outcomes := map[string]int{}
	for _, t := range w.turns {
		outcomes[w.outcome(t)]++
	}
	w.rec.mu.Lock()
	defer w.rec.mu.Unlock()
	w.rec.rep.Outcomes = outcomes
	w.rec.rep.clause(CheckTurnEnds).Exercised += len(w.turns)
	for _, t := range open {
		w.rec.failLocked(CheckTurnEnds, "Turn %s is %s %s after the workload ended", t, w.stateLocked(t), w.opts.Deadline)
	}
}

func (w *workload) state(t string) string {
	res, err := w.call(func(c core.CallID) core.Event { return core.ReadTurn{Call: c, Turn: t} })
	v, _ := res.Value.(*core.TurnView)
	if err != nil || v == nil {
		return ""
	}
	return string(v.State)
}

// newestOpen returns the newest Turn not yet terminal, else fallback.
func (w *workload) newestOpen(fallback string) string {
	for i := len(w.turns) - 1; i >= 0; i-- {
		if st := w.state(w.turns[i]); st != "" && !check.IsTerminal(st) {
			return w.turns[i]
		}
	}
	return fallback
}

// outcome is the Turn's state, with Core's failure code and detail when
// it failed.
func (w *workload) outcome(t string) string {
	res, err := w.call(func(c core.CallID) core.Event { return core.ReadTurn{Call: c, Turn: t} })
	v, _ := res.Value.(*core.TurnView)
	switch {
	case err != nil || v == nil:
		return "unreadable"
	case v.State != core.TurnFailed:
		return string(v.State)
	case v.ErrorDetail != "":
		return fmt.Sprintf("failed %s (%s)", v.ErrorCode, v.ErrorDetail)
	}
	return "failed " + v.ErrorCode
}

func (w *workload) stateLocked(t string) string {
	w.rec.mu.Unlock()
	defer w.rec.mu.Lock()
	return w.state(t)
}

// judgeShutdown: the daemon's shutdown must release everything, and the
// adapter must have confirmed every close and settlement it owned.
func (r *recorder) judgeShutdown(res runner.Result, err error) {
	executors, turns := r.owned()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.setStepLocked("shutdown")
	r.exerciseLocked(CheckShutdownComplete)
	switch {
	case err != nil:
		r.failLocked(CheckShutdownComplete, "the daemon ended with %v", err)
	case !res.Complete:
		r.failLocked(CheckShutdownComplete, "the daemon's shutdown ran out of grace owning %d resources", len(res.Owned))
	}
	r.rep.clause(CheckNothingOwned).Exercised += len(r.executors) + len(r.turns)
	for _, e := range executors {
		r.failLocked(CheckNothingOwned, "executor %s was never confirmed closed", e)
	}
	for _, t := range turns {
		r.failLocked(CheckNothingOwned, "run %s never confirmed its settlement", t)
	}
}

func (r *recorder) setStepLocked(name string) {
	r.step++
	r.stepName = name
}
