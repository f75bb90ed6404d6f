package core_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

const (
	prepEnv     = "6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
	prepSession = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	someDigest  = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
)

func fileStep(body []byte) core.PrepareStep {
	return core.PrepareStep{Header: wire.RuntimePrepare{Action: wire.PrepareActionFile,
		File: &wire.PrepareFile{Path: "/workspace/a.bin"}, SizeBytes: int64(len(body)), SHA256: someDigest}, Body: body}
}

func setupStep() core.PrepareStep {
	return core.PrepareStep{Header: wire.RuntimePrepare{Action: wire.PrepareActionInitialize,
		Initialization: &wire.Initialization{Action: "setup", Command: "make", Network: "disabled"}}}
}

func (h *rig) prepare(steps ...core.PrepareStep) string {
	h.t.Helper()
	r := h.api(core.PrepareEnvironment{Call: h.nextCall(), Device: "d1", EnvironmentID: prepEnv, SessionID: prepSession, Steps: steps})
	require.NoError(h.t, r.Err)
	return r.Value.(core.PreparationStarted).Preparation
}

func (h *rig) preparation(id string) core.EnvironmentPreparationRecord {
	h.t.Helper()
	r := h.api(core.ReadPreparation{Call: h.nextCall(), ID: id})
	require.NoError(h.t, r.Err)
	return *r.Value.(*core.EnvironmentPreparationRecord)
}

func oneTransfer(t *testing.T, effs []core.Effect) sent[wire.RuntimePrepare] {
	t.Helper()
	s := one[wire.RuntimePrepare](t, effs)
	require.NoError(t, s.P.Validate(), "Core sends only valid steps")
	return s
}

func TestPreparationDrivesChunksOneAtATime(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	body := bytes.Repeat([]byte{7}, 2*wire.ChunkBytesMax+10)
	id := h.prepare(fileStep(body), setupStep())
	begin := oneTransfer(t, h.last)
	require.Equal(t, wire.StepBegin, begin.P.Step)
	require.Equal(t, prepEnv, begin.P.EnvironmentID)
	require.True(t, wire.CanonicalUUID(begin.ID), "transfer ID %q is a canonical UUID", begin.ID)
	require.Equal(t, core.PreparationRunning, h.preparation(id).Steps[0].State)

	effs := h.frame(1, begin.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeReady})
	var end int64
	for end < int64(len(body)) {
		c := oneTransfer(t, effs)
		require.Equal(t, wire.StepChunk, c.P.Step)
		require.Equal(t, end, c.P.Offset)
		require.True(t, len(c.P.Data) <= wire.ChunkBytesMax, "chunk of %d bytes", len(c.P.Data))
		end += int64(len(c.P.Data))
		effs = h.frame(1, begin.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeReceived, Offset: end})
	}
	commit := oneTransfer(t, effs)
	require.Equal(t, wire.StepCommit, commit.P.Step)
	effs = h.frame(1, begin.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeCompleted, SizeBytes: int64(len(body))})

	next := oneTransfer(t, effs)
	require.Equal(t, wire.PrepareActionInitialize, next.P.Action)
	require.True(t, next.ID != begin.ID, "each transfer has its own ID")
	rec := h.preparation(id)
	require.Equal(t, core.PreparationCompleted, rec.Steps[0].State)
	require.Equal(t, core.PreparationRunning, rec.Steps[1].State)
	stored := h.st.EnvironmentPreparations()
	require.Equal(t, core.PreparationCompleted, stored[0].Steps[0].State, "each step is recorded durably")

	commit = oneTransfer(t, h.frame(1, next.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeReady}))
	require.Equal(t, wire.StepCommit, commit.P.Step, "a step without body commits after ready")
	h.frame(1, next.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeFailed, ErrorCode: wire.TransferFailed, ExitCode: 2})
	rec = h.preparation(id)
	require.Equal(t, core.PreparationFailed, rec.State)
	require.Equal(t, 2, rec.Steps[1].ExitCode)
	require.Equal(t, wire.TransferFailed, rec.Steps[1].ErrorCode)
}

// TestPreparationUnknownIsNeverReplayed: a lost connection, a timeout or
// a result the validator refuses makes the step unknown; a later
// connection gets nothing.
func TestPreparationUnknownIsNeverReplayed(t *testing.T) {
	cases := map[string]func(h *rig, id string){
		"connection lost": func(h *rig, _ string) { h.step(core.ConnClosed{Conn: 1, Reason: "lost"}) },
		"timeout":         func(h *rig, id string) { h.fire(core.TimerID("transfer:" + id)) },
		"wrong offset": func(h *rig, id string) {
			h.frame(1, id, wire.RuntimePrepareResult{Outcome: wire.OutcomeReceived, Offset: 1})
		},
		"received as completed": func(h *rig, id string) {
			h.frame(1, id, wire.RuntimePrepareResult{Outcome: wire.OutcomeCompleted, SizeBytes: 3})
		},
	}
	for name, lose := range cases {
		t.Run(name, func(t *testing.T) {
			h := newRig(t)
			h.connect("d1", 1, baseCaps())
			id := h.prepare(fileStep([]byte("abc")))
			begin := oneTransfer(t, h.last)
			oneTransfer(t, h.frame(1, begin.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeReady}))
			lose(h, begin.ID)
			rec := h.preparation(id)
			require.Equal(t, core.PreparationUnknown, rec.State)
			require.Equal(t, wire.TransferUnconfirmed, rec.Steps[0].ErrorCode)
			if name != "connection lost" {
				r := h.api(core.PrepareEnvironment{Call: "again", Device: "d1", EnvironmentID: prepEnv, SessionID: prepSession, Steps: []core.PrepareStep{setupStep()}})
				require.ErrorIs(t, r.Err, core.ErrTransferBusy, "the Runtime may still hold the unknown transfer open")
			}
			h.step(core.ConnClosed{Conn: 1, Reason: "lost"})
			effs := h.connect("d1", 2, baseCaps())
			require.Empty(t, sends[wire.RuntimePrepare](effs), "nothing replayed on reconnect")
			h.frame(2, begin.ID, wire.RuntimePrepareResult{Outcome: wire.OutcomeReceived, Offset: 3})
			require.Empty(t, sends[wire.RuntimePrepare](h.last), "a late result drives nothing")
			h.prepare(setupStep()) // a new connection may transfer again
		})
	}
}

func TestPreparationTimeoutIs195Seconds(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	h.prepare(setupStep())
	begin := oneTransfer(t, h.last)
	var at time.Time
	for _, e := range h.last {
		if st, ok := e.(core.SetTimer); ok && st.Timer == core.TimerID("transfer:"+begin.ID) {
			at = st.At
		}
	}
	require.Equal(t, t0.Add(195*time.Second), at)
}

func TestPreparationRejections(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	writes := h.st.Writes()
	bad := []struct {
		name string
		ev   core.PrepareEnvironment
		want error
	}{
		{"no steps", core.PrepareEnvironment{Device: "d1", EnvironmentID: prepEnv, SessionID: prepSession}, core.ErrInvalidPreparation},
		{"env not a UUID", core.PrepareEnvironment{Device: "d1", EnvironmentID: "env", SessionID: prepSession, Steps: []core.PrepareStep{setupStep()}}, core.ErrInvalidPreparation},
		{"body size mismatch", core.PrepareEnvironment{Device: "d1", EnvironmentID: prepEnv, SessionID: prepSession,
			Steps: []core.PrepareStep{{Header: fileStep([]byte("abc")).Header, Body: []byte("ab")}}}, core.ErrInvalidPreparation},
		{"body on setup", core.PrepareEnvironment{Device: "d1", EnvironmentID: prepEnv, SessionID: prepSession,
			Steps: []core.PrepareStep{{Header: setupStep().Header, Body: []byte("x")}}}, core.ErrInvalidPreparation},
		{"upper-case digest", core.PrepareEnvironment{Device: "d1", EnvironmentID: prepEnv, SessionID: prepSession,
			Steps: []core.PrepareStep{func() core.PrepareStep {
				s := fileStep([]byte("abc"))
				s.Header.SHA256 = "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08"
				return s
			}()}}, core.ErrInvalidPreparation},
		{"device offline", core.PrepareEnvironment{Device: "d2", EnvironmentID: prepEnv, SessionID: prepSession, Steps: []core.PrepareStep{setupStep()}}, core.ErrDeviceNotConnected},
	}
	for _, b := range bad {
		b.ev.Call = core.CallID(b.name)
		require.ErrorIs(t, h.api(b.ev).Err, b.want, b.name)
		require.Empty(t, sends[wire.RuntimePrepare](h.last), b.name)
	}
	require.Equal(t, writes, h.st.Writes(), "rejected calls changed durable state")
	h.prepare(setupStep())
	r := h.api(core.PrepareEnvironment{Call: "busy", Device: "d1", EnvironmentID: prepEnv, SessionID: prepSession, Steps: []core.PrepareStep{setupStep()}})
	require.ErrorIs(t, r.Err, core.ErrTransferBusy, "one transfer per connection")
	require.ErrorIs(t, h.api(core.ReadPreparation{Call: "r", ID: "ep-9"}).Err, core.ErrUnknownPreparation)
}

func TestPreparationRestartMakesRunningStepsUnknown(t *testing.T) {
	h := newRig(t)
	h.connect("d1", 1, baseCaps())
	id := h.prepare(setupStep(), setupStep())
	h.m = core.Restart(testConfig(), h.st)
	rec := h.preparation(id)
	require.Equal(t, core.PreparationUnknown, rec.State)
	require.Equal(t, core.PreparationUnknown, rec.Steps[0].State)
	require.Equal(t, core.PreparationPending, rec.Steps[1].State, "a later step was never sent")
	effs := h.connect("d1", 2, baseCaps())
	require.Empty(t, sends[wire.RuntimePrepare](effs), "nothing replayed after restart")
}
