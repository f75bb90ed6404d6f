package core_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// list lists a Session's Turns; the call must succeed.
func (h *rig) list(sid, after string, limit int) core.TurnPage {
	h.t.Helper()
	r := h.api(core.ListTurns{Call: h.nextCall(), Session: sid, After: after, Limit: limit})
	require.NoError(h.t, r.Err)
	return r.Value.(core.TurnPage)
}

func ids(vs []core.TurnView) []string {
	out := []string{}
	for _, v := range vs {
		out = append(out, v.ID)
	}
	return out
}

func TestListTurnsSubmissionOrderAndProjection(t *testing.T) {
	h := newRig(t)
	sid, tid, runID := h.running()
	other := h.session(defaultAgent())
	t2 := h.submit(sid, "second")
	t3 := h.submit(other, "elsewhere")
	t4 := h.submit(sid, "third")
	h.frame(1, runID, wire.RunError{Error: "boom", Code: wire.EngineConnectionFailed, HTTPStatus: 502})
	h.frame(1, runID, wire.Done{})

	r := h.list(sid, "", 0)
	require.Equal(t, []string{tid, t2, t4}, ids(r.Turns))
	require.Equal(t, "", r.NextAfter)
	read := h.api(core.ReadTurn{Call: h.nextCall(), Turn: tid})
	require.Equal(t, *read.Value.(*core.TurnView), r.Turns[0], "a listed Turn has ReadTurn's projection")
	require.Equal(t, core.TurnFailed, r.Turns[0].State)
	require.Equal(t, core.CodeEngineFailed, r.Turns[0].ErrorCode)
	require.Equal(t, wire.EngineConnectionFailed, r.Turns[0].EngineErrorCode)
	require.Equal(t, 502, r.Turns[0].EngineHTTPStatus)
	require.Equal(t, h.turn(t2), r.Turns[1], "a live Turn is listed with its live projection")

	require.Equal(t, []string{t3}, ids(h.list(other, "", 0).Turns))
	fresh := h.session(defaultAgent())
	none := h.list(fresh, "", 0)
	require.Equal(t, []core.TurnView{}, none.Turns, "an empty Session lists an empty page, not nil")
}

func TestListTurnsPages(t *testing.T) {
	h := newRig(t)
	sid := h.session(defaultAgent())
	var all []string
	for i := 0; i < 5; i++ {
		all = append(all, h.submit(sid, "x"))
	}
	var got []string
	after := ""
	for pages := 0; ; pages++ {
		require.True(t, pages < 3, "pagination does not terminate")
		r := h.list(sid, after, 2)
		require.True(t, len(r.Turns) <= 2)
		got = append(got, ids(r.Turns)...)
		if r.NextAfter == "" {
			break
		}
		require.Equal(t, r.Turns[len(r.Turns)-1].ID, r.NextAfter)
		after = r.NextAfter
	}
	require.Equal(t, all, got)
	exact := h.list(sid, "", 5)
	require.Len(t, exact.Turns, 5)
	require.Equal(t, "", exact.NextAfter, "a page that ends the list names no next cursor")
	last := h.list(sid, all[4], 0)
	require.Equal(t, []core.TurnView{}, last.Turns)
	require.Equal(t, "", last.NextAfter)
}

func TestListTurnsDefaultAndMaxLimit(t *testing.T) {
	h := newRigCfg(t, core.Config{TurnsPerSessionMax: core.ListTurnsMax + 1})
	sid := h.session(defaultAgent())
	for i := 0; i < core.ListTurnsMax+1; i++ {
		h.submit(sid, "x")
	}
	def := h.list(sid, "", 0)
	require.Len(t, def.Turns, core.ListTurnsDefault)
	require.Equal(t, def.Turns[core.ListTurnsDefault-1].ID, def.NextAfter)
	max := h.list(sid, "", core.ListTurnsMax)
	require.Len(t, max.Turns, core.ListTurnsMax)
	require.NotEqual(t, "", max.NextAfter)
}

func TestListTurnsRejections(t *testing.T) {
	h := newRig(t)
	sid := h.session(defaultAgent())
	other := h.session(defaultAgent())
	foreign := h.submit(other, "x")
	h.submit(sid, "x")
	before := h.st.Writes()
	for _, c := range []struct {
		name string
		ev   core.ListTurns
		want error
	}{
		{"unknown session", core.ListTurns{Session: "s-99"}, core.ErrUnknownSession},
		{"negative limit", core.ListTurns{Session: sid, Limit: -1}, core.ErrBadLimit},
		{"limit over max", core.ListTurns{Session: sid, Limit: core.ListTurnsMax + 1}, core.ErrBadLimit},
		{"unknown cursor", core.ListTurns{Session: sid, After: "t-99"}, core.ErrBadCursor},
		{"cursor of another session", core.ListTurns{Session: sid, After: foreign}, core.ErrBadCursor},
	} {
		c.ev.Call = h.nextCall()
		r := h.api(c.ev)
		require.ErrorIs(t, r.Err, c.want, c.name)
		require.Nil(t, r.Value, c.name)
	}
	require.Equal(t, before, h.st.Writes(), "a list writes nothing")
}
