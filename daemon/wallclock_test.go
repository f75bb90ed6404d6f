package daemon

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

// lastHeartbeat fires the heartbeat timer and returns the heartbeat sent.
func lastHeartbeat(r *rig) wire.Heartbeat {
	r.t.Helper()
	r.fire(heartbeatTimer(r.gen))
	hb := payloadsOf[wire.Heartbeat](r.sent())
	require.Truef(r.t, len(hb) == 1, "one heartbeat, got %s", describeAll(r.out))
	return hb[0]
}

// TestWallClockStepShiftsWireValuesOnly steps the wall clock forward and
// then back: heartbeat ts and expires_at follow the wall clock, while the
// expiry timer and the deadline stay in monotonic time.
func TestWallClockStepShiftsWireValuesOnly(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	require.Equal(t, t0.Add(5*time.Minute).UnixMilli(), st.ExpiresAt, "expires_at before any step")

	require.Empty(t, r.step(WallClockStep{Offset: 10 * time.Minute}), "a wall step emits nothing")
	require.Equal(t, 10*time.Minute, r.m.WallOffset(), "offset accumulated")
	hb := lastHeartbeat(r)
	require.Equal(t, r.now.Add(10*time.Minute).Unix(), hb.TS, "heartbeat ts after +10 min")
	r.recv("p1", prepareFor("s1"))
	require.Equal(t, t0.Add(15*time.Minute).UnixMilli(), oneStatus(r).ExpiresAt, "republished expires_at after +10 min")
	at, ok := r.armed(expiryTimer(st.Handle))
	require.Truef(t, ok && at.Equal(t0.Add(5*time.Minute)), "expiry timer stays monotonic: %v", at)

	r.step(WallClockStep{Offset: -20 * time.Minute})
	require.Equal(t, -10*time.Minute, r.m.WallOffset(), "offset accumulated")
	hb = lastHeartbeat(r)
	require.Equal(t, r.now.Add(-10*time.Minute).Unix(), hb.TS, "heartbeat ts after -10 min")
	r.recv("p2", prepareFor("s2"))
	st2 := oneStatus(r)
	require.Equal(t, r.now.Add(5*time.Minute-10*time.Minute).UnixMilli(), st2.ExpiresAt, "new grant's expires_at after -10 min")
	at, _ = r.armed(expiryTimer(st2.Handle))
	require.Truef(t, at.Equal(r.now.Add(5*time.Minute)), "new expiry timer is grant + 5 min monotonic: %v", at)
	require.Equal(t, t0.Add(5*time.Minute), r.m.Snapshot().Admissions[0].ExpiresAt, "snapshot deadline is monotonic")
}

// TestWallClockJumpForwardDoesNotExpireEarly: with the wall clock 10 min
// ahead, a start 4m59s after the grant is still in time. Comparing the
// monotonic instant with the wall-derived deadline would refuse it.
func TestWallClockJumpForwardDoesNotExpireEarly(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	r.step(WallClockStep{Offset: 10 * time.Minute})
	r.now = t0.Add(4*time.Minute + 59*time.Second)
	r.recv("p1", startFor(st, "run1"))
	got := oneStatus(r)
	require.Equal(t, wire.StateStarting, got.State, "start at grant + 4m59s accepted")
	callOf[StartTurn](r)
}

// TestWallClockJumpBackwardDoesNotExtend: with the wall clock 10 min
// behind, the admission still expires exactly 5 min after the grant.
func TestWallClockJumpBackwardDoesNotExtend(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	r.step(WallClockStep{Offset: -10 * time.Minute})
	r.now = t0.Add(5 * time.Minute)
	r.recv("p1", startFor(st, "run1"))
	require.Equal(t, wire.StateExpired, oneStatus(r).State, "start at grant + 5m expired")
	noCall[StartTurn](r)
}

// TestWallClockJumpBackwardTimer: the expiry timer fires at grant + 5 min
// in monotonic time whatever the wall clock says.
func TestWallClockJumpBackwardTimer(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	r.step(WallClockStep{Offset: -10 * time.Minute})
	r.fire(expiryTimer(st.Handle))
	require.Equal(t, t0.Add(5*time.Minute), r.now, "fired at grant + 5 min")
	require.Equal(t, wire.StateExpired, oneStatus(r).State, "expired by the timer")
}

func TestWallClockStepDescribe(t *testing.T) {
	require.Equal(t, "wall-clock-step offset=-1m30s", WallClockStep{Offset: -90 * time.Second}.Describe(), "describe")
}
