package check

import (
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

func TestInstallOutcomeOracleAcceptsTheInstallersAnswer(t *testing.T) {
	rows := map[string]struct {
		outcome string
		exit    int
		reply   wire.RuntimePrepareResult
	}{
		"completed": {InstallOutcomeCompleted, 0, wire.RuntimePrepareResult{Outcome: wire.OutcomeCompleted, SizeBytes: 3}},
		"mismatch":  {InstallOutcomeMismatch, 0, wire.RuntimePrepareResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.TransferRejected}},
	}
	for name, row := range rows {
		t.Run(name, func(t *testing.T) {
			l, w := newFeed()
			w.open(1, "d1")
			transferTo(w, 1)
			l.TransferInstallOutcome(*w.now, "d1", "g1/"+xferID, row.outcome, row.exit, true, 3, 3)
			w.deviceSends(1, "d1", resultFrame(xferID, row.reply))
			if vs := checksNamed(l.AfterStep(1), "transfer"); len(vs) != 0 {
				t.Fatalf("violations: %v", vs)
			}
		})
	}
}

func TestInstallOutcomeOracleCatchesAnAnswerTheInstallerDidNotGive(t *testing.T) {
	rows := map[string]struct {
		ran     bool
		outcome string
		reply   wire.RuntimePrepareResult
	}{
		"mismatch answered failed": {true, InstallOutcomeMismatch,
			wire.RuntimePrepareResult{Outcome: wire.OutcomeFailed, ErrorCode: wire.TransferFailed}},
		"installed answered rejected": {true, InstallOutcomeCompleted,
			wire.RuntimePrepareResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.TransferRejected}},
		"mismatch never found": {false, "",
			wire.RuntimePrepareResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.TransferRejected}},
	}
	for name, row := range rows {
		t.Run(name, func(t *testing.T) {
			l, w := newFeed()
			w.open(1, "d1")
			transferTo(w, 1)
			if row.ran {
				l.TransferInstallOutcome(*w.now, "d1", "g1/"+xferID, row.outcome, 0, true, 3, 3)
			}
			w.deviceSends(1, "d1", resultFrame(xferID, row.reply))
			if vs := checksNamed(l.AfterStep(1), "transfer_install_outcome"); len(vs) != 1 {
				t.Fatalf("violations: %v", vs)
			}
		})
	}
}

func TestInstallOutcomeOracleCatchesAFailedSetupsExitCodeChanged(t *testing.T) {
	l, w := newFeed()
	w.open(1, "d1")
	id := "7e570000-0000-4000-8000-000001000002"
	w.coreSends(1, "d1", wire.Frame{ID: id, Payload: wire.RuntimePrepare{Step: wire.StepBegin, EnvironmentID: xferEnv,
		SessionID: xferEnv, Action: wire.PrepareActionInitialize,
		Initialization: &wire.Initialization{Action: "setup", Command: "exit 7", Network: "disabled"}}})
	w.deviceSends(1, "d1", resultFrame(id, wire.RuntimePrepareResult{Outcome: wire.OutcomeReady}))
	w.coreSends(1, "d1", commitFrame(id))
	l.TransferInstallOutcome(*w.now, "d1", "g1/"+id, InstallOutcomeFailed, 7, false, 0, 0)
	w.deviceSends(1, "d1", resultFrame(id, wire.RuntimePrepareResult{Outcome: wire.OutcomeFailed, ErrorCode: wire.TransferFailed, ExitCode: 9}))
	if vs := checksNamed(l.AfterStep(1), "transfer_install_outcome"); len(vs) != 1 {
		t.Fatalf("violations: %v", vs)
	}
}

func TestInstallOutcomeOracleCatchesAnIncompleteTransferInstalled(t *testing.T) {
	l, _ := newFeed()
	l.TransferInstallOutcome(5, "d1", "g1/"+xferID, InstallOutcomeMismatch, 0, true, 2, 3)
	if vs := checksNamed(l.AfterStep(5), "transfer_incomplete_installed"); len(vs) != 1 {
		t.Fatalf("violations: %v", vs)
	}
}

func TestPrepareDuringInstallOracle(t *testing.T) {
	l, _ := newFeed()
	l.InstallBegan(1, "d1", "g1/"+xferID)
	l.NativePrepareCalled(2, "d2", "ex-1") // another device
	if vs := checksNamed(l.AfterStep(2), "prepare_during_install"); len(vs) != 0 {
		t.Fatalf("violations: %v", vs)
	}
	l.NativePrepareCalled(3, "d1", "ex-2")
	if vs := checksNamed(l.AfterStep(3), "prepare_during_install"); len(vs) != 1 {
		t.Fatalf("violations: %v", vs)
	}
	l.TransferInstallOutcome(4, "d1", "g1/"+xferID, InstallOutcomeCompleted, 0, false, 0, 0)
	l.NativePrepareCalled(5, "d1", "ex-3")
	if vs := checksNamed(l.AfterStep(5), "prepare_during_install"); len(vs) != 0 {
		t.Fatalf("after the answer: %v", vs)
	}
}
