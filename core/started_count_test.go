package core_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// startUnconfirmedThenCancel: a Turn whose execution_start left but was
// never confirmed, with a cancel sent: the native turn may exist.
func startUnconfirmedThenCancel(t *testing.T) (*rig, string) {
	h := newRig(t)
	h.connect("d1", 1, with(baseCaps(), "native_session_recovery", wire.CapabilitySupported))
	sid := h.session(defaultAgent())
	h.submit(sid, "x")
	prep := one[wire.ExecutionPrepare](t, h.last)
	h.frame(1, prep.ID, status(wire.StatePreparing, 1))
	one[wire.ExecutionStart](t, h.frame(1, prep.ID, status(wire.StateReady, 2)))
	one[wire.PromptCancel](t, h.step(core.CancelTurn{Call: "c", Turn: "t-1"}))
	return h, sid
}

// A start that may have run natively counts as started even when a cancel
// was awaiting its receipt when the observation ended: the Session's next
// Turn must require the existing native history, never start a new root.
func TestCancelledUnconfirmedStartCountsAsStarted(t *testing.T) {
	for name, end := range map[string]func(h *rig){
		"connection lost": func(h *rig) {
			h.step(core.ConnClosed{Conn: 1, Reason: "lost"})
			h.connect("d1", 2, with(baseCaps(), "native_session_recovery", wire.CapabilitySupported))
		},
		"cancel timeout": func(h *rig) {
			h.advance(15 * time.Second)
			h.fire("cancel:t-1")
		},
		"core restart": func(h *rig) {
			h.restart()
			h.connect("d1", 2, with(baseCaps(), "native_session_recovery", wire.CapabilitySupported))
		},
	} {
		t.Run(name, func(t *testing.T) {
			h, sid := startUnconfirmedThenCancel(t)
			end(h)
			require.Equal(t, core.CodeCancelUnconfirmed, h.turn("t-1").ErrorCode)
			h.submit(sid, "y")
			prep := one[wire.ExecutionPrepare](t, h.last)
			require.True(t, prep.P.Configuration.RequireExistingNativeSession)
			sess, _ := h.st.Session(sid)
			require.Equal(t, 1, sess.StartedTurns)
		})
	}
}
