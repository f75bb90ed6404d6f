package core_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// scriptTrace runs a fixed script with several devices, sessions, steering
// and a cancel, and renders every effect with Describe.
func scriptTrace(t *testing.T) string {
	h := newRig(t)
	var b strings.Builder
	rec := func(effs []core.Effect) {
		for _, e := range effs {
			b.WriteString(e.Describe())
			b.WriteByte('\n')
		}
	}
	for _, d := range []string{"d3", "d1", "d2"} {
		c := core.ConnID(len(d) + int(d[1]-'0'))
		h.step(core.ConnOpened{Device: d, Conn: c})
		rec(h.frame(c, "", heartbeat(fullCaps())))
	}
	for i := 0; i < 4; i++ {
		sid := h.session(defaultAgent())
		h.submit(sid, "x")
		rec(h.last)
	}
	for _, p := range h.m.Preparations() {
		rec(h.frame(p.Conn, p.RequestID, status(wire.StateReady, 1)))
		rec(h.frame(p.Conn, p.RequestID, status(wire.StateStarted, 2)))
	}
	for _, v := range h.m.ActiveTurns() {
		rec(h.step(core.SteerInput{Call: "c", Turn: v.ID, Input: wire.TextInput("s")}))
	}
	rec(h.step(core.CancelTurn{Call: "c", Turn: "t-2"}))
	h.advance(time.Minute)
	for _, tv := range h.m.Timers() {
		rec(h.step(core.TimerFired{Timer: tv.Timer}))
	}
	for _, d := range h.m.Devices() {
		b.WriteString(d.Device + " " + d.Conn.String() + "\n")
	}
	return b.String()
}

func TestSameEventsSameTrace(t *testing.T) {
	a, b := scriptTrace(t), scriptTrace(t)
	require.Equal(t, a, b)
	require.True(t, strings.Contains(a, "prompt_cancel id=t-2 delivery_id=cancel:t-2"), a)
	require.True(t, strings.Contains(a, "execution_start"), a)
}

func TestDescribeIsOneLine(t *testing.T) {
	evs := []core.Event{
		core.ConnOpened{Device: "d", Conn: 1}, core.ConnClosed{Conn: 1, Reason: "r"},
		core.FrameReceived{Conn: 1, Frame: wire.Frame{ID: "t-1", Payload: wire.Done{}}},
		core.FrameRejected{Conn: 1, Type: "heartbeat", Err: errAny}, core.TimerFired{Timer: "x"},
		core.SubscriberOverflow{Subscriber: "s"}, core.CreateSession{Call: "c"},
		core.SubmitTurn{Call: "c"}, core.SteerInput{Call: "c"}, core.CancelTurn{Call: "c"},
		core.ReadTurn{Call: "c"}, core.Subscribe{Call: "c"},
	}
	effs := []core.Effect{
		core.Send{Conn: 1, Frame: wire.Frame{ID: "p", Payload: wire.ExecutionRelease{Handle: "h"}}},
		core.CloseConn{Conn: 1}, core.SetTimer{Timer: "x", At: t0}, core.CancelTimer{Timer: "x"},
		core.Observation{Subscriber: "s", Closed: true, Err: core.ErrDisconnected},
		core.Observation{Subscriber: "s", Event: &core.RunEvent{Seq: 1, Type: "delta"}},
		core.APIResult{Call: "c", Value: &core.TurnView{ID: "t"}}, core.APIResult{Call: "c", Err: core.ErrUnknownTurn},
	}
	var lines []string
	for _, e := range evs {
		lines = append(lines, e.Describe())
	}
	for _, e := range effs {
		lines = append(lines, e.Describe())
	}
	for _, l := range lines {
		require.True(t, l != "" && !strings.Contains(l, "\n"), "%q", l)
	}
}
