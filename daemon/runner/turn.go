package runner

import (
	"errors"
	"fmt"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/wire"
)

// start creates the Turn's bounded output channel, starts its one
// consumer and only then calls the native StartTurn (the nil-Turn rule of
// adapters/agent decides who closes the channel).
func (n *Native) start(op daemon.StartTurn) daemon.Result {
	ex := n.executor(op.Executor)
	if ex == nil {
		return daemon.StartResult{Err: reasonUnknown}
	}
	out := make(chan agent.Event, outputFramesMax)
	stop := make(chan struct{})
	n.wg.Add(1)
	go n.consume(op.Turn, op.Run, out, stop)
	turn, err, panicked := n.callStart(ex, op, out)
	if panicked || turn != nil {
		n.consumed(op.Executor) // the Turn owns its output: the preparation is used
	}
	switch {
	case panicked:
		// Input may have been submitted, and the adapter may still hold
		// the channel: stop draining it, never close it, and track a
		// broken Turn that settles not reusable so the executor is closed.
		close(stop)
		n.keep(op.Turn, &nativeTurn{executor: op.Executor, broken: true})
		return daemon.StartResult{Turn: true, Err: reasonStartPanic}
	case turn == nil:
		close(out) // nothing was submitted and the channel is ours
		if err == nil {
			return daemon.StartResult{Err: "adapter returned neither a turn nor an error"}
		}
		return daemon.StartResult{Err: err.Error()}
	}
	n.keep(op.Turn, &nativeTurn{executor: op.Executor, turn: turn})
	if err != nil {
		return daemon.StartResult{Turn: true, Err: err.Error()}
	}
	return daemon.StartResult{Turn: true}
}

func (n *Native) callStart(ex agent.Executor, op daemon.StartTurn, out chan agent.Event) (t agent.Turn, err error, panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			n.log.Error("adapter panicked in StartTurn", "turn", string(op.Turn), "panic", fmt.Sprint(v))
			t, err, panicked = nil, nil, true
		}
	}()
	t, err = ex.StartTurn(n.ctx, agent.TurnRequest{RunID: op.Run, Input: op.Input, Output: out})
	return t, err, false
}

// keep records a started Turn; the executor's earlier Turns are settled
// (the machine starts one Turn at a time per executor) and forgotten.
func (n *Native) keep(id daemon.TurnID, t *nativeTurn) {
	n.mu.Lock()
	n.forgetTurnsOf(t.executor)
	n.turns[id] = t
	n.mu.Unlock()
}

// consume is the Turn's single output consumer: it forwards every event
// in order until the Turn closes the channel (or, after a panicking
// start, until stop).
func (n *Native) consume(id daemon.TurnID, run string, out <-chan agent.Event, stop <-chan struct{}) {
	defer n.wg.Done()
	for {
		select {
		case ev, ok := <-out:
			if !ok {
				return
			}
			if ev.RunID != run || ev.Payload == nil {
				n.log.Error("adapter emitted an event of another run or without payload; dropped", "turn", string(id))
				continue
			}
			if _, ok := ev.Payload.(wire.PermissionCancel); ok {
				n.emit(daemon.NativePermissionWithdrawn{Turn: id, InteractionID: ev.InteractionID})
				continue
			}
			n.emit(daemon.NativeTurnEvent{Turn: id, Event: ev.Payload})
		case <-stop:
			return
		}
	}
}

// write performs a durable input write. A nil error is the `written`
// stage; the receipt's native application is watched on its own
// goroutine and reported as NativeInputApplied.
func (n *Native) write(op daemon.DurableWrite) daemon.Result {
	t := n.turn(op.Turn)
	switch {
	case t == nil:
		return daemon.WriteResult{Outcome: daemon.WriteFailed, Err: reasonUnknown}
	case t.broken:
		return daemon.WriteResult{Outcome: daemon.WriteFailed, Err: reasonStartPanic}
	}
	r, err := t.turn.SteerDurable(n.ctx, agent.SteerInput{InputID: op.InputID, Input: op.Input})
	if err != nil {
		return daemon.WriteResult{Outcome: writeOutcome(err), Err: err.Error()}
	}
	if r != nil {
		n.wg.Add(1)
		go n.watchApplied(op.Turn, op.InputID, r)
	}
	return daemon.WriteResult{Outcome: daemon.WriteWritten}
}

// writeOutcome classifies a failed write: the contract's refusals mean
// nothing was written; anything else may have been.
func writeOutcome(err error) daemon.WriteOutcome {
	for _, definite := range []error{agent.ErrTurnInactive, agent.ErrInputConflict, agent.ErrInvalidRequest,
		agent.ErrUnsupportedOperation, agent.ErrNotPending} {
		if errors.Is(err, definite) {
			return daemon.WriteFailed
		}
	}
	return daemon.WriteUnknown
}

func (n *Native) watchApplied(id daemon.TurnID, input string, r agent.AppliedReceipt) {
	defer n.wg.Done()
	defer func() {
		if v := recover(); v != nil {
			n.log.Error("adapter panicked in AwaitApplied", "turn", string(id), "panic", fmt.Sprint(v))
		}
	}()
	if err := r.AwaitApplied(n.ctx); err != nil {
		return // not applied (or unknown): no `accepted` receipt
	}
	n.emit(daemon.NativeInputApplied{Turn: id, InputID: input})
}
