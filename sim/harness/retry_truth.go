package harness

import "time"

// RetryRecorder is the ground truth the daemon's retry oracles need: when
// a settlement wait reaches the native side and how it is answered, and
// how each executor close ends. A device's Recorder may implement it;
// times are virtual nanoseconds since sim.Epoch.
type RetryRecorder interface {
	// SettleCalled: an AwaitSettlement for run's Turn reached the Harness.
	SettleCalled(at int64, device, run string)
	// SettleAnswered: its answer left, settled or unconfirmed.
	SettleAnswered(at int64, device, run string, settled bool)
	// CloseAnswered: an executor close's answer left, confirmed or failed.
	CloseAnswered(at int64, device, executor string, ok bool)
}

func (h *Harness) retryTruth() RetryRecorder {
	rr, _ := h.dev.Recorder.(RetryRecorder)
	return rr
}

func (h *Harness) settleCalled(now time.Time, run string) {
	if rr := h.retryTruth(); rr != nil {
		rr.SettleCalled(at(now), string(h.dev.ID), run)
	}
}

func (h *Harness) settleAnswered(now time.Time, run string, settled bool) {
	if rr := h.retryTruth(); rr != nil {
		rr.SettleAnswered(at(now), string(h.dev.ID), run, settled)
	}
}

func (h *Harness) closeAnswered(now time.Time, executor string, ok bool) {
	if rr := h.retryTruth(); rr != nil {
		rr.CloseAnswered(at(now), string(h.dev.ID), executor, ok)
	}
}
