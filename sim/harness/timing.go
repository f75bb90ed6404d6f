package harness

import (
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
)

// TimingRecorder is the ground truth the timing oracles need beside
// Recorder: when native calls arrive and return, as the native side sees
// them. A device's Recorder may implement it; times are virtual
// nanoseconds since sim.Epoch and outcome is "written", "failed" or
// "unknown".
type TimingRecorder interface {
	WriteCalled(at int64, device, run, input string)
	WriteReturned(at int64, device, run, input, outcome string)
	CancelFailed(at int64, device, run string)
	CloseCalled(at int64, device, executor string)
	ProcessDied(at int64, device string)
	// NativeAnswered: a native call's result reached the daemon.
	NativeAnswered(at int64, device string)
}

func (h *Harness) timing() TimingRecorder {
	tr, _ := h.dev.Recorder.(TimingRecorder)
	return tr
}

func writeOutcomeName(o daemon.WriteOutcome) string {
	switch o {
	case daemon.WriteWritten:
		return "written"
	case daemon.WriteFailed:
		return "failed"
	}
	return "unknown"
}

func (h *Harness) writeCalled(now time.Time, t *hTurn, input string) {
	if tr := h.timing(); tr != nil && t != nil {
		tr.WriteCalled(at(now), string(h.dev.ID), t.run, input)
	}
}

func (h *Harness) writeReturned(now time.Time, t *hTurn, input string, o daemon.WriteOutcome) {
	if tr := h.timing(); tr != nil && t != nil {
		tr.WriteReturned(at(now), string(h.dev.ID), t.run, input, writeOutcomeName(o))
	}
}
