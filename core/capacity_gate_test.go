package core_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

func capacityRefusal() wire.PreparationStatus {
	return wire.PreparationStatus{State: wire.StateRejected, ErrorCode: wire.PrepPreparationCapacity, Operation: wire.TypeExecutionPrepare}
}

// preparesAt moves the clock to at, fires every timer due by then, in
// instant order, and returns the execution_prepare frames sent.
func (h *rig) preparesAt(at time.Time) []sent[wire.ExecutionPrepare] {
	h.t.Helper()
	h.now = at
	var out []sent[wire.ExecutionPrepare]
	for {
		var due *core.TimerView
		for _, tv := range h.m.Timers() {
			if !tv.At.After(at) && (due == nil || tv.At.Before(due.At)) {
				v := tv
				due = &v
			}
		}
		if due == nil {
			return out
		}
		out = append(out, sends[wire.ExecutionPrepare](h.step(core.TimerFired{Timer: due.Timer}))...)
	}
}

// A full Runtime gets one probe per wait, not a preparation per queued
// Turn per retry: after preparation_capacity refusals the connection
// takes no preparation for PrepareRetryDelay, then one at a time, the
// wait doubling with each refused probe; each preparation it takes
// doubles how many may be open at once.
func TestFullRuntimeGetsOneProbePerWait(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	var first []sent[wire.ExecutionPrepare]
	for range 5 {
		h.submit(h.session(defaultAgent()), "x")
		first = append(first, sends[wire.ExecutionPrepare](h.last)...)
	}
	require.Len(t, first, 5)
	for _, p := range first {
		h.frame(1, p.ID, capacityRefusal())
	}
	start := h.now
	require.Empty(t, h.preparesAt(start.Add(time.Second-time.Nanosecond)), "nothing before the wait ends")
	probe := h.preparesAt(start.Add(time.Second))
	require.Len(t, probe, 1, "one probe, not one per queued Turn")
	h.frame(1, probe[0].ID, capacityRefusal())
	refused := h.now
	require.Empty(t, h.preparesAt(refused.Add(2*time.Second-time.Nanosecond)), "the wait doubled")
	probe = h.preparesAt(refused.Add(2 * time.Second))
	require.Len(t, probe, 1)
	h.frame(1, probe[0].ID, status(wire.StatePreparing, 1))
	next := sends[wire.ExecutionPrepare](h.last)
	require.Len(t, next, 1, "an accepted probe doubles the window: two open")
	h.frame(1, next[0].ID, wire.PreparationStatus{ExecutorID: "exec-2", Handle: "h-2", Revision: 1, State: wire.StatePreparing, ExpiresAt: 1})
	require.Len(t, sends[wire.ExecutionPrepare](h.last), 2, "and again: four open")
}

// A heartbeat of the connection ends the wait early: capacity may have
// been released meanwhile.
func TestHeartbeatEndsTheCapacityWait(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	h.submit(h.session(defaultAgent()), "x")
	p := one[wire.ExecutionPrepare](t, h.last)
	h.frame(1, p.ID, capacityRefusal())
	start := h.now
	probe := h.preparesAt(start.Add(time.Second))
	require.Len(t, probe, 1)
	h.frame(1, probe[0].ID, capacityRefusal()) // the next wait is 2 s
	require.Empty(t, h.preparesAt(h.now.Add(time.Second)))
	require.Len(t, sends[wire.ExecutionPrepare](h.frame(1, "", heartbeat(baseCaps()))), 1, "a heartbeat ends the wait")
}
