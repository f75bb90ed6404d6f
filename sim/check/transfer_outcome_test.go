package check

import (
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

func TestStagedInOrderJudgesTheInstallersStaging(t *testing.T) {
	l := NewLedger()
	l.StageCalled(1, "d1", "g1/t", 0, wire.ChunkBytesMax, 0)
	l.StageCalled(2, "d1", "g1/t", wire.ChunkBytesMax, 10, wire.ChunkBytesMax)
	wantClean(t, l)
	if l.marks[MarkTransferChunkStaged] != 2 {
		t.Fatalf("marks %v", l.marks)
	}
	for name, c := range map[string][3]int64{
		"out of order": {5, 1, 0},
		"past a gap":   {wire.ChunkBytesMax + 1, 1, wire.ChunkBytesMax},
		"oversized":    {0, wire.ChunkBytesMax + 1, 0},
		"empty":        {0, 0, 0},
	} {
		t.Run(name, func(t *testing.T) {
			l := NewLedger()
			l.StageCalled(1, "d1", "g1/t", c[0], c[1], c[2])
			wantViolation(t, l, "transfer_staged_in_order", "g1/t")
		})
	}
}

func prepResult(id, outcome, code string) wire.Frame {
	return resultFrame(id, wire.RuntimePrepareResult{Outcome: outcome, ErrorCode: code})
}

func TestPreparationOutcomeFollowsTheResults(t *testing.T) {
	rejected := PrepStepFact{State: PrepStateRejected, Transfer: "t1", Code: wire.TransferRejected}
	t.Run("a rejection that reached Core ends the preparation", func(t *testing.T) {
		l, w := newFeed()
		w.open(1, "d1")
		w.deviceSends(1, "d1", prepResult("t1", wire.OutcomeRejected, wire.TransferRejected))
		l.PreparationRecorded(*w.now, "p1", PrepStateRejected, []PrepStepFact{rejected, {State: "pending"}})
		if vs := checksNamed(l.Violations(), "preparation_outcome"); len(vs) != 0 {
			t.Fatalf("violations: %v", vs)
		}
	})
	t.Run("the next step begun after a rejection", func(t *testing.T) {
		l, w := newFeed()
		w.open(1, "d1")
		w.deviceSends(1, "d1", prepResult("t1", wire.OutcomeRejected, wire.TransferRejected))
		l.PreparationRecorded(*w.now, "p1", "running", []PrepStepFact{rejected, {State: "running", Transfer: "t2"}})
		wantViolation(t, l, "preparation_outcome", "after step 0 ended rejected")
	})
	t.Run("completed despite a rejected step", func(t *testing.T) {
		l, w := newFeed()
		w.open(1, "d1")
		w.deviceSends(1, "d1", prepResult("t1", wire.OutcomeRejected, wire.TransferRejected))
		l.PreparationRecorded(*w.now, "p1", PrepStateCompleted, []PrepStepFact{rejected})
		wantViolation(t, l, "preparation_outcome", "completed although step 0 ended rejected")
	})
	t.Run("failed without a failed result (a restart)", func(t *testing.T) {
		l, w := newFeed()
		w.open(1, "d1")
		w.coreSends(1, "d1", wire.Frame{ID: "t1", Payload: wire.RuntimePrepare{Step: wire.StepBegin}})
		l.PreparationRecorded(*w.now, "p1", PrepStateFailed, []PrepStepFact{{State: PrepStateFailed, Transfer: "t1", Code: wire.TransferFailed}})
		wantViolation(t, l, "preparation_outcome", "a result that never reached it")
	})
	t.Run("failed with the exit code of its result, and with another", func(t *testing.T) {
		for exit, want := range map[int]int{3: 0, 0: 1} {
			l, w := newFeed()
			w.open(1, "d1")
			w.deviceSends(1, "d1", resultFrame("t1", wire.RuntimePrepareResult{Outcome: wire.OutcomeFailed, ErrorCode: wire.TransferFailed, ExitCode: 3}))
			l.PreparationRecorded(*w.now, "p1", PrepStateFailed, []PrepStepFact{{State: PrepStateFailed, Transfer: "t1", Code: wire.TransferFailed, Exit: exit}})
			if vs := checksNamed(l.Violations(), "preparation_outcome"); len(vs) != want {
				t.Errorf("recorded exit code %d: violations %v, want %d", exit, vs, want)
			}
		}
	})
}

func TestForgedTransferNeverReachesTheInstaller(t *testing.T) {
	l := NewLedger()
	l.StageCalled(1, "d1", "g1/"+HostileTransferPrefix+"b-1", 0, 1, 0)
	wantViolation(t, l, CheckHostileEffect, "forged transfer")
	l = NewLedger()
	l.InstallBegan(1, "d1", "g1/"+HostileTransferPrefix+"u-1")
	wantViolation(t, l, CheckHostileEffect, "forged transfer")
}
