package check

import (
	"strconv"
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: transfer_staged_in_order (rules.go), against the simulated
// installer's ground truth; preparation_outcome (rules.go), against Core's
// durable preparation records and the results the wire delivered to Core.

// StageCalled records the simulated installer being handed a chunk of
// transfer ("g<gen>/<id>") at offset with size bytes, staged bytes
// already staged for it.
func (l *Ledger) StageCalled(at int64, device, transfer string, offset, size, staged int64) {
	l.advance(at)
	l.forgedTransferInstalled(at, device, transfer)
	switch {
	case offset != staged:
		l.violate(at, "transfer_staged_in_order", "%s's installer is handed a chunk of %s at offset %d with %d bytes staged",
			device, transfer, offset, staged)
	case size < 1 || size > wire.ChunkBytesMax:
		l.violate(at, "transfer_staged_in_order", "%s's installer is handed a %d-byte chunk of %s (1 to %d allowed)",
			device, size, transfer, wire.ChunkBytesMax)
	case l.stagedPastSize(transfer, offset+size):
		l.violate(at, "transfer_staged_in_order", "%s's installer is handed bytes %d..%d of %s, past the %d bytes its begin declared",
			device, offset, offset+size, transfer, l.transfers.byID[transferOfInstaller(transfer)].total)
	default:
		l.reach(MarkTransferChunkStaged)
	}
}

// transferOfInstaller is the Envelope ID of the transfer an installer
// identity (g<connection generation>/<transfer ID>) stages.
func transferOfInstaller(transfer string) string {
	_, id, _ := strings.Cut(transfer, "/")
	return id
}

// stagedPastSize: staging up to end runs past the size_bytes of the begin
// Core sent for the transfer.
func (l *Ledger) stagedPastSize(transfer string, end int64) bool {
	st := l.transfers.byID[transferOfInstaller(transfer)]
	return st != nil && st.body && end > st.total
}

// Preparation states as Core's records name them.
const (
	PrepStateCompleted = "completed"
	PrepStateRejected  = "rejected"
	PrepStateFailed    = "failed"
	PrepStateUnknown   = "unknown"
)

// PrepStepFact is one step of a preparation record: its state, its
// transfer ID once begun, the code and the exit code recorded.
type PrepStepFact struct {
	State, Transfer, Code string
	Exit                  int
}

// transferResultKey keys a result that reached Core; a failed one carries
// its exit code too.
func transferResultKey(id, outcome, code string, exit int) string {
	return id + "/" + outcome + "/" + code + "/" + strconv.Itoa(exit)
}

// observeTransferResultsAtCore notes every runtime_prepare_result that
// reached Core (forged ones too: Core may take them for its transfer).
func (l *Ledger) observeTransferResultsAtCore(ev WireEvent) {
	if r, ok := ev.Frame.Payload.(wire.RuntimePrepareResult); ok && ev.Kind == WireDelivered && ev.To == CoreNode {
		made(&l.prepOutcome.delivered)[transferResultKey(ev.Frame.ID, r.Outcome, r.ErrorCode, r.ExitCode)] = true
		if _, unknown := l.transferTime.unknownAt[ev.Frame.ID]; unknown && (r.Outcome == wire.OutcomeReady || r.Outcome == wire.OutcomeReceived) {
			l.reach(MarkLateTransferResult) // proves no terminal outcome: the connection stays Core's to avoid
		}
	}
}

type prepOutcomeState struct {
	delivered map[string]bool // transfer/outcome/code/exit of results delivered to Core
}

// PreparationRecorded records Core durably writing preparation id with
// state and its steps.
func (l *Ledger) PreparationRecorded(at int64, id, state string, steps []PrepStepFact) {
	l.advance(at)
	ended := -1
	for i, st := range steps {
		switch st.State {
		case PrepStateRejected, PrepStateFailed:
			if st.Transfer != "" && !l.prepOutcome.delivered[transferResultKey(st.Transfer, st.State, st.Code, st.Exit)] {
				l.violate(at, "preparation_outcome", "Core records step %d (transfer %s) of preparation %s %s %s (exit code %d), a result that never reached it",
					i, st.Transfer, id, st.State, st.Code, st.Exit)
			}
		}
		switch {
		case ended >= 0 && st.Transfer != "":
			l.violate(at, "preparation_outcome", "Core began step %d (transfer %s) of preparation %s after step %d ended %s",
				i, st.Transfer, id, ended, steps[ended].State)
			return
		case ended < 0 && (st.State == PrepStateRejected || st.State == PrepStateFailed || st.State == PrepStateUnknown):
			ended = i
			if st.State == PrepStateRejected && i+1 < len(steps) {
				l.reach(MarkPreparationEndedByRejection)
			}
		}
	}
	if ended >= 0 && state == PrepStateCompleted {
		l.violate(at, "preparation_outcome", "Core records preparation %s completed although step %d ended %s", id, ended, steps[ended].State)
	}
}

// HostileTransferPrefix starts the ID of every transfer probe that must
// be refused at its begin (an upper-case digest, a second transfer on a
// busy connection).
const HostileTransferPrefix = HostileIDPrefix + "xt"

// forgedTransferInstalled: a transfer probe refused at its begin never
// reaches the installer: no native call happens for it.
func (l *Ledger) forgedTransferInstalled(at int64, device, transfer string) {
	if id := transferOfInstaller(transfer); strings.HasPrefix(id, HostileTransferPrefix) {
		l.violate(at, CheckHostileEffect, "%s's installer is handed forged transfer %s", device, id)
	}
}
