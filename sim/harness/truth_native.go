package harness

import (
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// StartRecorder is an optional extension of Recorder: StartAnswered
// reports the instant the native start call of a Run returned to the
// daemon, with or without a Turn. Until then the daemon's start is
// unresolved: a cancel or steer of that Run must be refused not_ready.
type StartRecorder interface {
	StartAnswered(at int64, device, run string)
}

// DoneRecorder is an optional extension of Recorder: NativeDone reports
// the native terminal result of a Run as the Harness emitted it, with its
// usage (nil when it carried none). The daemon's done must carry that
// usage when there is one: it is the final cumulative snapshot.
type DoneRecorder interface {
	NativeDone(at int64, device, run string, usage *wire.Usage)
}

// CloseFailRecorder is an optional extension of Recorder: CloseFailed
// reports a close of an executor that failed (the executor stays open and
// its cleanup unconfirmed until a retry succeeds).
type CloseFailRecorder interface {
	CloseFailed(at int64, device, executor string)
}

func (h *Harness) closeFailed(now time.Time, executor string) {
	if r, ok := h.dev.Recorder.(CloseFailRecorder); ok {
		r.CloseFailed(at(now), string(h.dev.ID), executor)
	}
}

func (h *Harness) startAnswered(now time.Time, run string) {
	if r, ok := h.dev.Recorder.(StartRecorder); ok {
		r.StartAnswered(at(now), string(h.dev.ID), run)
	}
}

func (h *Harness) nativeDone(now time.Time, t *hTurn, d wire.Done) {
	if r, ok := h.dev.Recorder.(DoneRecorder); ok {
		r.NativeDone(at(now), string(h.dev.ID), t.run, d.Usage)
	}
}

// finalUsage is the usage a natural end reports: the final accounting
// also counts reasoning tokens, which the running snapshots leave out, so
// the native done's usage is newer than the last snapshot.
func finalUsage(d *wire.Done) {
	if d.Usage == nil || d.Usage.Tokens == nil {
		return
	}
	tok := *d.Usage.Tokens
	tok.ReasoningOutputTokens = tok.OutputTokens / 2
	tok.TotalTokens += tok.ReasoningOutputTokens
	u := *d.Usage
	u.Tokens = &tok
	d.Usage = &u
}
