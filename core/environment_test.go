package core_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store"
	"github.com/turnstile-sim/turnstile/wire"
)

func definition() *core.EnvironmentDefinition {
	return &core.EnvironmentDefinition{
		Files: []core.EnvironmentFile{{Path: "/workspace/data/in.txt", SHA256: someDigest, Content: bytes.Repeat([]byte("x"), wire.ChunkBytesMax+5)}},
		Setup: []core.EnvironmentSetup{{Command: "make setup", Network: wire.NetworkDisabled}},
	}
}

func definedAgent(d *core.EnvironmentDefinition) core.AgentConfig {
	a := defaultAgent()
	a.Environment, a.EnvironmentID, a.Definition = core.EnvSelfHosted, prepEnv, d
	return a
}

// driveStep answers one transfer's begin (already sent in effs) through
// to completed and returns the effects after the completion and the
// transfer ID.
func driveStep(h *rig, c core.ConnID, effs []core.Effect) ([]core.Effect, string) {
	h.t.Helper()
	begin := oneTransfer(h.t, effs)
	require.Equal(h.t, wire.StepBegin, begin.P.Step)
	effs = h.frame(c, begin.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeReady})
	for {
		s := oneTransfer(h.t, effs)
		if s.P.Step == wire.StepCommit {
			return h.frame(c, begin.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeCompleted, SizeBytes: begin.P.SizeBytes}), begin.ID
		}
		effs = h.frame(c, begin.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeReceived, Offset: s.P.Offset + int64(len(s.P.Data))})
	}
}

func (h *rig) environment(sid string) []core.EnvironmentPreparationRecord {
	h.t.Helper()
	r := h.api(core.ReadEnvironment{Call: h.nextCall(), Session: sid})
	require.NoError(h.t, r.Err)
	return r.Value.(core.Preparations)
}

func TestEnvironmentDefinitionPreparesEachConnectionBeforeItsWork(t *testing.T) {
	h := newRig(t)
	sid := h.session(definedAgent(definition()))
	require.Empty(t, h.environment(sid), "no connection prepared it yet")
	h.submit(sid, "one")
	effs := h.connect("d1", 1, hostedCaps(baseCaps()))
	require.Empty(t, sends[wire.ExecutionPrepare](effs), "no work before the Environment is prepared")
	begin := oneTransfer(t, effs)
	require.Equal(t, wire.PrepareActionFile, begin.P.Action)
	require.Equal(t, prepEnv, begin.P.EnvironmentID)
	require.True(t, wire.CanonicalUUID(begin.P.SessionID), "session_id %q", begin.P.SessionID)

	effs, first := driveStep(h, 1, effs)
	require.Empty(t, sends[wire.ExecutionPrepare](effs), "the setup step is still to run")
	recs := h.environment(sid)
	require.Equal(t, 1, len(recs))
	require.Equal(t, core.PreparationCompleted, recs[0].Steps[0].State)
	require.Equal(t, core.PreparationRunning, recs[0].Steps[1].State)
	require.Equal(t, "make setup", oneTransfer(t, effs).P.Initialization.Command)

	effs, _ = driveStep(h, 1, effs)
	one[wire.ExecutionPrepare](t, effs)
	recs = h.environment(sid)
	require.Equal(t, core.PreparationCompleted, recs[0].State)
	require.Equal(t, sid, recs[0].Session)
	require.Equal(t, recs, h.st.EnvironmentPreparations(), "each step is recorded durably")

	h.step(core.ConnClosed{Conn: 1, Reason: "lost"})
	effs = h.connect("d1", 2, hostedCaps(baseCaps()))
	again := oneTransfer(t, effs)
	require.Equal(t, wire.StepBegin, again.P.Step, "a new connection initialises the Environment again")
	require.True(t, again.ID != first, "with a fresh transfer ID")
	require.Equal(t, 2, len(h.environment(sid)))
}

func TestEnvironmentPreparationFailureFailsTheTurn(t *testing.T) {
	h := newRig(t)
	sid := h.session(definedAgent(&core.EnvironmentDefinition{Setup: []core.EnvironmentSetup{{Command: "exit 3"}}}))
	tid := h.submit(sid, "one")
	effs := h.connect("d1", 1, hostedCaps(baseCaps()))
	begin := oneTransfer(t, effs)
	commit := oneTransfer(t, h.frame(1, begin.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeReady}))
	require.Equal(t, wire.StepCommit, commit.P.Step)
	effs = h.frame(1, begin.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeFailed, ErrorCode: wire.TransferFailed, ExitCode: 3})
	require.Empty(t, sends[wire.ExecutionPrepare](effs))
	v := h.turn(tid)
	require.Equal(t, core.TurnFailed, v.State)
	require.Equal(t, wire.TransferFailed, v.ErrorCode)
	require.True(t, strings.Contains(v.ErrorDetail, "exit code 3"), "detail %q", v.ErrorDetail)

	next := h.submit(sid, "two")
	require.Empty(t, sends[wire.RuntimePrepare](h.last), "the failed preparation is not run again on the connection")
	require.Equal(t, core.TurnFailed, h.turn(next).State)
}

// TestEnvironmentPreparationUnknownIsNeverReplayed: a transport error
// makes the step runtime_preparation_unconfirmed; the Turn fails with it,
// and the transfer is never sent again.
func TestEnvironmentPreparationUnknownIsNeverReplayed(t *testing.T) {
	for _, name := range []string{"timeout", "connection lost"} {
		t.Run(name, func(t *testing.T) {
			h := newRig(t)
			sid := h.session(definedAgent(definition()))
			tid := h.submit(sid, "one")
			begin := oneTransfer(t, h.connect("d1", 1, hostedCaps(baseCaps())))
			oneTransfer(t, h.frame(1, begin.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeReady}))
			if name == "timeout" {
				h.fire(core.TimerID("transfer:" + begin.ID))
				v := h.turn(tid)
				require.Equal(t, core.TurnFailed, v.State)
				require.Equal(t, wire.TransferUnconfirmed, v.ErrorCode)
				two := h.submit(sid, "two")
				require.Empty(t, sends[wire.RuntimePrepare](h.last), "not replayed on the connection")
				require.Equal(t, wire.TransferUnconfirmed, h.turn(two).ErrorCode)
			}
			h.step(core.ConnClosed{Conn: 1, Reason: "lost"})
			if name == "timeout" {
				tid = h.submit(sid, "three")
			}
			rec := h.environment(sid)[0]
			require.Equal(t, core.PreparationUnknown, rec.State)
			require.Equal(t, wire.TransferUnconfirmed, rec.Steps[0].ErrorCode)
			require.Equal(t, core.TurnQueued, h.turn(tid).State, "an unprepared Turn stays queued")
			effs := h.connect("d1", 2, hostedCaps(baseCaps()))
			fresh := oneTransfer(t, effs)
			require.True(t, fresh.ID != begin.ID, "the unknown transfer is never replayed")
			h.frame(2, begin.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeReceived, Offset: 3})
			require.Empty(t, sends[wire.RuntimePrepare](h.last), "a late result drives nothing")
		})
	}
}

// plainStore keeps no preparation records.
type plainStore struct{ core.Store }

func TestEnvironmentDefinitionRejections(t *testing.T) {
	h := newRig(t)
	writes := h.st.Writes()
	edit := func(f func(*core.EnvironmentDefinition)) *core.EnvironmentDefinition {
		d := definition()
		f(d)
		return d
	}
	rows := []struct {
		name     string
		agent    core.AgentConfig
		fragment string
	}{
		{"environment none", func() core.AgentConfig { a := defaultAgent(); a.Definition = definition(); return a }(), "environment none"},
		{"empty", definedAgent(&core.EnvironmentDefinition{}), "no file, skill, plugin or setup"},
		{"environment ID not a UUID", func() core.AgentConfig { a := definedAgent(definition()); a.EnvironmentID = "env-1"; return a }(), "environment_id"},
		{"path outside the workspace", definedAgent(edit(func(d *core.EnvironmentDefinition) { d.Files[0].Path = "/etc/passwd" })), "file.path"},
		{"unclean path", definedAgent(edit(func(d *core.EnvironmentDefinition) { d.Files[0].Path = "/workspace/../x" })), "file.path"},
		{"setup without command", definedAgent(edit(func(d *core.EnvironmentDefinition) { d.Setup[0].Command = "" })), "setup[0].command"},
		{"digest not lower-case hex", definedAgent(edit(func(d *core.EnvironmentDefinition) { d.Files[0].SHA256 = "ABC" })), "sha256"},
		{"bad network", definedAgent(edit(func(d *core.EnvironmentDefinition) { d.Setup[0].Network = "maybe" })), "network"},
		{"skill without description", definedAgent(edit(func(d *core.EnvironmentDefinition) {
			d.Skills = []core.EnvironmentPackage{{Name: "lint", SHA256: someDigest, Content: []byte("zip")}}
		})), "skill.description"},
		{"empty plugin", definedAgent(edit(func(d *core.EnvironmentDefinition) {
			d.Plugins = []core.EnvironmentPackage{{Name: "p", Description: "d", SHA256: someDigest}}
		})), "size_bytes"},
		{"too many steps", definedAgent(edit(func(d *core.EnvironmentDefinition) {
			for range core.EnvironmentStepsMax {
				d.Setup = append(d.Setup, core.EnvironmentSetup{Command: "true"})
			}
		})), "steps, at most"},
		{"too many bytes", definedAgent(edit(func(d *core.EnvironmentDefinition) {
			d.Files[0].Content = make([]byte, core.EnvironmentDefinitionBytesMax+1)
		})), "bytes of content"},
	}
	for _, row := range rows {
		r := h.api(core.CreateSession{Call: core.CallID(row.name), Agent: row.agent})
		require.ErrorIs(t, r.Err, core.ErrInvalidConfig, row.name)
		require.True(t, strings.Contains(r.Err.Error(), row.fragment), "%s: %v", row.name, r.Err)
	}
	require.Equal(t, writes, h.st.Writes(), "rejected creations changed durable state")

	plain := &rig{t: t, m: core.New(testConfig(), plainStore{store.NewMemory()}), now: t0}
	r := plain.api(core.CreateSession{Call: "c", Agent: definedAgent(definition())})
	require.ErrorIs(t, r.Err, core.ErrPreparationUnavailable)

	require.ErrorIs(t, h.api(core.ReadEnvironment{Call: "r1", Session: "s-9"}).Err, core.ErrUnknownSession)
	sid := h.session(defaultAgent())
	require.ErrorIs(t, h.api(core.ReadEnvironment{Call: "r2", Session: sid}).Err, core.ErrNoEnvironmentDefinition)
}
