package server_test

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestNewRestartsFromAStoreWithRecords: a backend left by a crashed Core
// (a Turn running) is recovered through core.Restart, and the recovery is
// committed before New returns.
func TestNewRestartsFromAStoreWithRecords(t *testing.T) {
	back := server.NewMemory()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := core.New(core.Config{Policy: enginetest.OpenPolicy("contract")}, back)
	step := func(ev core.Event) []core.Effect { return m.Step(now, ev) }
	step(core.ConnOpened{Device: "d1", Conn: 1})
	rt := &scripted.Runtime{Hold: true}
	feed := func(frames [][]byte) [][]byte {
		var out [][]byte
		for _, b := range frames {
			f, err := wire.Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range step(core.FrameReceived{Conn: 1, Frame: f}) {
				if s, ok := e.(core.Send); ok {
					enc, _ := wire.Encode(s.Frame)
					out = append(out, rt.Respond(enc)...)
				}
			}
		}
		return out
	}
	feed([][]byte{rt.Heartbeat(0)})
	sid := step(core.CreateSession{Call: "c1", Agent: core.AgentConfig{Kind: scripted.Kind, Model: "m", Environment: core.EnvNone}})[0].(core.APIResult).Value.(core.SessionCreated).Session
	var pending [][]byte
	for _, e := range step(core.SubmitTurn{Call: "c2", Session: sid, Input: wire.TextInput("x")}) {
		if s, ok := e.(core.Send); ok {
			enc, _ := wire.Encode(s.Frame)
			pending = append(pending, rt.Respond(enc)...)
		}
	}
	for len(pending) > 0 {
		pending = feed(pending)
	}
	if v, _ := m.Turn("t-1"); v.State != core.TurnRunning {
		t.Fatalf("setup: turn is %s", v.State)
	}
	commits := back.Commits()
	if _, err := server.New(back, server.Options{Config: core.Config{Policy: enginetest.OpenPolicy("contract")}}); err != nil {
		t.Fatal(err)
	}
	rec, _ := back.Turn("t-1")
	if rec.State != core.TurnFailed || rec.ErrorCode != core.CodeEventStreamIncomplete {
		t.Fatalf("after restart: %s %s", rec.State, rec.ErrorCode)
	}
	if back.Commits() != commits+1 {
		t.Fatalf("recovery not committed: %d commits", back.Commits()-commits)
	}
}

// TestNewRestartsFromSuspensionsAlone: a backend whose only records are
// a suspension awaiting its quiesce reply and an Environment preparation
// still running (no Session, no Turn) is recovered through core.Restart
// as well: both become unknown, and the recovery is committed.
func TestNewRestartsFromSuspensionsAlone(t *testing.T) {
	back := server.NewMemory()
	back.PutSuspension(core.SuspensionRecord{ID: "sus-1", Seq: 1, EnvironmentID: "e", Device: "d1",
		State: core.SuspensionQuiescing, Attempts: 1})
	back.PutEnvironmentPreparation(core.EnvironmentPreparationRecord{ID: "ep-1", Seq: 1, Device: "d1",
		State: core.PreparationRunning, Steps: []core.PreparationStepRecord{{Action: "file", State: core.PreparationRunning}}})
	commits := back.Commits()
	if _, err := server.New(back, server.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := back.Suspensions(); len(got) != 1 || got[0].State != core.SuspensionQuiesceUnknown {
		t.Fatalf("suspension after restart: %+v", got)
	}
	if got := back.EnvironmentPreparations(); len(got) != 1 || got[0].State != core.PreparationUnknown {
		t.Fatalf("preparation after restart: %+v", got)
	}
	if back.Commits() != commits+1 {
		t.Fatalf("recovery not committed: %d commits", back.Commits()-commits)
	}
}
