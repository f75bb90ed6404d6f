package check

import (
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: transfer_incomplete_installed, transfer_install_outcome,
// prepare_during_install (rules.go), against the simulated installer's
// ground truth.

// Installer outcomes the simulated Harness reports.
const (
	InstallOutcomeCompleted = "completed"
	InstallOutcomeMismatch  = "mismatch"
	InstallOutcomeFailed    = "failed"
	InstallOutcomeUnknown   = "unknown" // the installer could not confirm it
)

type installRec struct {
	outcome string
	exit    int
}

// TransferInstallOutcome records what the installer found when it was
// handed transfer ("g<gen>/<id>"): its outcome, the setup command's exit
// code, and the staged and declared body sizes (hasBody: a skill, plugin
// or file).
func (l *Ledger) TransferInstallOutcome(at int64, device, transfer, outcome string, exit int, hasBody bool, staged, declared int64) {
	s := &l.transfers
	_, id, _ := strings.Cut(transfer, "/")
	delete(s.installing[device], transfer)
	made(&s.outcomes)[device+"/"+id] = installRec{outcome: outcome, exit: exit}
	if hasBody && staged != declared {
		l.violate(at, "transfer_incomplete_installed", "%s's installer got transfer %s with %d of its %d declared bytes staged",
			device, id, staged, declared)
	}
}

// judgeInstallOutcome compares a daemon's answer to a commit with its
// installer's outcome.
func (l *Ledger) judgeInstallOutcome(ev WireEvent, r wire.RuntimePrepareResult) {
	key := ev.From + "/" + ev.Frame.ID
	rec, ran := l.transfers.outcomes[key]
	bad := func(why string) {
		l.violate(ev.At, "transfer_install_outcome", "%s answers the commit of %s %s/%s (exit %d): %s",
			ev.From, ev.Frame.ID, r.Outcome, r.ErrorCode, r.ExitCode, why)
	}
	mismatch := r.Outcome == wire.OutcomeRejected && r.ErrorCode == wire.TransferRejected
	failedRun := r.Outcome == wire.OutcomeFailed && r.ExitCode > 0
	switch {
	case !ran:
		switch {
		case r.Outcome == wire.OutcomeCompleted:
			bad("its installer never ran")
		case mismatch:
			bad("a mismatch its installer never found")
		case failedRun:
			bad("an exit code its installer never reported")
		}
	case rec.outcome == InstallOutcomeMismatch && !mismatch:
		bad("its installer found a size or digest mismatch (runtime_preparation_rejected)")
	case rec.outcome == InstallOutcomeFailed && (r.Outcome != wire.OutcomeFailed ||
		r.ErrorCode != wire.TransferFailed || r.ExitCode != rec.exit):
		bad("its installer's command failed with this exit code")
	case rec.outcome == InstallOutcomeCompleted && r.Outcome != wire.OutcomeCompleted:
		bad("its installer installed it")
	case rec.outcome == InstallOutcomeUnknown && (r.Outcome != wire.OutcomeUnknown || r.ErrorCode != wire.TransferUnconfirmed):
		bad("its installer could not confirm the installation (unknown, " + wire.TransferUnconfirmed + ")")
	case rec.outcome == InstallOutcomeUnknown:
		l.reach(MarkTransferInstallUnconfirmed)
	}
}

// transferForgedCommit notes a forged commit reaching a daemon, whose
// refusal (invalid_request: not fully staged) earlyCommitAnswered marks.
func (l *Ledger) transferForgedCommit(ev WireEvent) {
	if p, ok := ev.Frame.Payload.(wire.RuntimePrepare); ok && p.Step == wire.StepCommit {
		made(&l.transfers.forgedCommits)[connKey(ev.Conn)+"/"+ev.Frame.ID] = true
	}
}

func (l *Ledger) earlyCommitAnswered(ev WireEvent, r wire.RuntimePrepareResult) {
	k := connKey(ev.Conn) + "/" + ev.Frame.ID
	if l.transfers.forgedCommits[k] && r.Outcome == wire.OutcomeRejected && r.ErrorCode == wire.TransferInvalidRequest {
		delete(l.transfers.forgedCommits, k)
		l.reach(MarkTransferEarlyCommitRefused)
	}
}

// InstallBegan records the simulated installer being handed transfer on
// device (answered by TransferInstallOutcome).
func (l *Ledger) InstallBegan(at int64, device, transfer string) {
	l.forgedTransferInstalled(at, device, transfer)
	inner(made(&l.transfers.installing), device)[transfer] = true
}

// NativePrepareCalled records the Harness receiving a native Prepare.
func (l *Ledger) NativePrepareCalled(at int64, device, executor string) {
	l.advance(at)
	l.executorCreating(at, device, executor)
	if n := len(l.transfers.installing[device]); n > 0 {
		l.violate(at, "prepare_during_install", "%s's Harness receives the Prepare of %s while %d installations are unanswered",
			device, executor, n)
	}
}

// installsNodeDown: a crashed daemon's installations are never answered
// to it.
func (l *Ledger) installsNodeDown(node string) { delete(l.transfers.installing, node) }

// installHoldMark: a new preparation answered preparing while an
// installation was unanswered (the hold at work).
func (l *Ledger) installHoldMark(ev WireEvent, st wire.PreparationStatus) {
	if st.State == wire.StatePreparing && st.Revision == 1 && len(l.transfers.installing[ev.From]) > 0 {
		l.reach(MarkPrepareHeldForInstall)
	}
}
