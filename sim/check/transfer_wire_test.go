package check

import (
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

const (
	xferID  = "7e570000-0000-4000-8000-000001000001"
	xferEnv = "6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
)

func beginFrame(id string, size int64) wire.Frame {
	return wire.Frame{ID: id, Payload: wire.RuntimePrepare{Step: wire.StepBegin, EnvironmentID: xferEnv, SessionID: xferEnv,
		Action: wire.PrepareActionFile, File: &wire.PrepareFile{Path: "/workspace/a"}, SizeBytes: size,
		SHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}}
}

func chunkFrame(id string, off int64, data string) wire.Frame {
	return wire.Frame{ID: id, Payload: wire.RuntimePrepare{Step: wire.StepChunk, Offset: off, Data: []byte(data)}}
}

func commitFrame(id string) wire.Frame {
	return wire.Frame{ID: id, Payload: wire.RuntimePrepare{Step: wire.StepCommit}}
}

func resultFrame(id string, r wire.RuntimePrepareResult) wire.Frame {
	return wire.Frame{ID: id, Payload: r}
}

// transferTo runs begin and one chunk of "abc" to the commit.
func transferTo(w wireFeed, conn uint64) {
	w.coreSends(conn, "d1", beginFrame(xferID, 3))
	w.deviceSends(conn, "d1", resultFrame(xferID, wire.RuntimePrepareResult{Outcome: wire.OutcomeReady}))
	w.coreSends(conn, "d1", chunkFrame(xferID, 0, "abc"))
	w.deviceSends(conn, "d1", resultFrame(xferID, wire.RuntimePrepareResult{Outcome: wire.OutcomeReceived, Offset: 3}))
	w.coreSends(conn, "d1", commitFrame(xferID))
}

func TestTransferOracleAcceptsTheProtocol(t *testing.T) {
	l, w := newFeed()
	w.open(1, "d1")
	transferTo(w, 1)
	l.TransferInstallOutcome(*w.now, "d1", "g1/"+xferID, InstallOutcomeCompleted, 0, true, 3, 3)
	w.deviceSends(1, "d1", resultFrame(xferID, wire.RuntimePrepareResult{Outcome: wire.OutcomeCompleted, SizeBytes: 3}))
	if vs := checksNamed(l.AfterStep(1), "transfer"); len(vs) != 0 {
		t.Fatalf("violations: %v", vs)
	}
	if l.marks[MarkTransferCompleted] != 1 {
		t.Fatalf("marks %v", l.marks)
	}
}

func TestTransferOracleCatchesCompletionWithoutInstall(t *testing.T) {
	l, w := newFeed()
	w.open(1, "d1")
	transferTo(w, 1)
	l.TransferInstallOutcome(*w.now, "d1", "g1/"+xferID, InstallOutcomeMismatch, 0, true, 3, 3) // digest mismatch
	w.deviceSends(1, "d1", resultFrame(xferID, wire.RuntimePrepareResult{Outcome: wire.OutcomeCompleted, SizeBytes: 3}))
	vs := checksNamed(l.AfterStep(1), "transfer_installed_without_digest")
	if len(vs) != 1 {
		t.Fatalf("violations: %v", vs)
	}
}

func TestTransferOracleCatchesWrongResults(t *testing.T) {
	rows := map[string]wire.RuntimePrepareResult{
		"wrong offset":      {Outcome: wire.OutcomeReceived, Offset: 2},
		"skipped stage":     {Outcome: wire.OutcomeCompleted, SizeBytes: 3},
		"unknown code":      {Outcome: wire.OutcomeRejected, ErrorCode: "nope"},
		"exit code on ok":   {Outcome: wire.OutcomeReceived, Offset: 3, ExitCode: 1},
		"failed wrong code": {Outcome: wire.OutcomeFailed, ErrorCode: wire.TransferRejected},
	}
	for name, r := range rows {
		t.Run(name, func(t *testing.T) {
			l, w := newFeed()
			w.open(1, "d1")
			w.coreSends(1, "d1", beginFrame(xferID, 3))
			w.deviceSends(1, "d1", resultFrame(xferID, wire.RuntimePrepareResult{Outcome: wire.OutcomeReady}))
			w.coreSends(1, "d1", chunkFrame(xferID, 0, "abc"))
			w.deviceSends(1, "d1", resultFrame(xferID, r))
			if vs := checksNamed(l.AfterStep(1), "transfer_result"); len(vs) != 1 {
				t.Fatalf("violations: %v", vs)
			}
		})
	}
}

func TestTransferOracleCatchesReplayAndSecondFrameInFlight(t *testing.T) {
	l, w := newFeed()
	w.open(1, "d1")
	w.coreSends(1, "d1", beginFrame(xferID, 3))
	w.coreSends(1, "d1", chunkFrame(xferID, 0, "abc")) // before ready
	vs := checksNamed(l.AfterStep(1), "transfer_in_flight")
	if len(vs) != 1 {
		t.Fatalf("in flight: %v", vs)
	}
	w.close(1, "d1")
	w.open(2, "d1")
	w.coreSends(2, "d1", chunkFrame(xferID, 0, "abc"))
	vs = checksNamed(l.AfterStep(2), "transfer_replayed")
	if len(vs) != 1 || !strings.Contains(vs[0].Message, "after using it on c1") {
		t.Fatalf("replay: %v", vs)
	}
	if l.marks[MarkTransferLostWithConnection] != 1 {
		t.Fatalf("marks %v", l.marks)
	}
}

func TestTransferExchangeOracle(t *testing.T) {
	t.Run("unknown at 195 s", func(t *testing.T) {
		l, w := newFeed()
		w.open(1, "d1")
		w.coreSends(1, "d1", beginFrame(xferID, 3))
		begun := *w.now - 1_000_000 // the begin's send
		l.PreparationStepUnknown(begun+int64(transferExchange), xferID)
		if vs := checksNamed(l.AfterStep(1), CheckTimingTransfer); len(vs) != 0 {
			t.Fatalf("violations: %v", vs)
		}
	})
	t.Run("unknown early without a reason", func(t *testing.T) {
		l, w := newFeed()
		w.open(1, "d1")
		w.coreSends(1, "d1", beginFrame(xferID, 3))
		at := *w.now + int64(transferExchange)/2
		l.PreparationStepUnknown(at, xferID)
		if vs := checksNamed(l.AfterStep(1), CheckTimingTransfer); len(vs) != 0 {
			t.Fatalf("judged before the instant ended: %v", vs)
		}
		// another connection closing in that instant is no reason
		l.Wire(WireEvent{At: at, Kind: WireClosed, Conn: 2, From: CoreNode, To: CoreNode})
		if vs := checksNamed(l.Final(at+1), CheckTimingTransfer); len(vs) != 1 {
			t.Fatalf("violations: %v", vs)
		}
	})
	t.Run("unknown early as Core closes the connection in that instant", func(t *testing.T) {
		l, w := newFeed()
		w.open(1, "d1")
		w.coreSends(1, "d1", beginFrame(xferID, 3))
		at := w.tick()
		// Core records the step before its close of the connection (an
		// invalid heartbeat) reaches the wire in the same step.
		l.PreparationStepUnknown(at, xferID)
		l.Wire(WireEvent{At: at, Kind: WireClosed, Conn: 1, From: CoreNode, To: CoreNode, Reason: "invalid heartbeat"})
		l.Final(at + 1)
		if vs := checksNamed(l.Violations(), CheckTimingTransfer); len(vs) != 0 {
			t.Fatalf("violations: %v", vs)
		}
	})
	t.Run("unknown early as a replayed result reaches Core", func(t *testing.T) {
		l, w := newFeed()
		w.open(1, "d1")
		w.coreSends(1, "d1", beginFrame(xferID, 3))
		at := w.tick()
		// the network replays the device's ready into the chunk phase
		l.Wire(WireEvent{At: at, Kind: WireDelivered, Conn: 1, From: "d1", To: CoreNode, Forged: true, Raw: []byte("x"),
			Frame: resultFrame(xferID, wire.RuntimePrepareResult{Outcome: wire.OutcomeReady})})
		l.PreparationStepUnknown(at, xferID)
		l.Final(at + 1)
		if vs := checksNamed(l.Violations(), CheckTimingTransfer); len(vs) != 0 {
			t.Fatalf("violations: %v", vs)
		}
	})
	t.Run("unknown early after the connection ended", func(t *testing.T) {
		l, w := newFeed()
		w.open(1, "d1")
		w.coreSends(1, "d1", beginFrame(xferID, 3))
		w.close(1, "d1")
		l.PreparationStepUnknown(*w.now, xferID)
		if vs := checksNamed(l.AfterStep(1), CheckTimingTransfer); len(vs) != 0 {
			t.Fatalf("violations: %v", vs)
		}
	})
	t.Run("no record at 195 s", func(t *testing.T) {
		l, w := newFeed()
		w.open(1, "d1")
		w.coreSends(1, "d1", beginFrame(xferID, 3))
		if vs := checksNamed(l.Final(*w.now+int64(transferExchange)+1), CheckTimingTransfer); len(vs) != 1 {
			t.Fatalf("violations: %v", vs)
		}
	})
	// Core crashes 190 s into the exchange and restarts 10 s later: its
	// timer died with it, and the restart records the step unknown in its
	// own instant, after the deadline.
	crashedOver := func(recorded bool) []Violation {
		l, w := newFeed()
		w.open(1, "d1")
		w.coreSends(1, "d1", beginFrame(xferID, 3))
		begun := *w.now - 1_000_000
		l.NodeCrashed(begun+int64(190e9), CoreNode)
		up := begun + int64(200e9)
		if recorded {
			l.PreparationStepUnknown(up, xferID) // the recovery's records come first
		}
		l.CoreRestarted(up, nil)
		return checksNamed(append(l.AfterStep(1), l.Final(up+1)...), CheckTimingTransfer)
	}
	t.Run("Core down at the deadline, unknown at its restart", func(t *testing.T) {
		if vs := crashedOver(true); len(vs) != 0 {
			t.Fatalf("violations: %v", vs)
		}
	})
	t.Run("Core restarted without the unknown record", func(t *testing.T) {
		vs := crashedOver(false)
		if len(vs) != 1 || !strings.Contains(vs[0].Message, "was running when Core crashed, and its restart at 3m20.002s did not record it unknown") {
			t.Fatalf("violations: %v", vs)
		}
	})
	t.Run("terminal result in time", func(t *testing.T) {
		l, w := newFeed()
		w.open(1, "d1")
		w.coreSends(1, "d1", beginFrame(xferID, 3))
		w.deviceSends(1, "d1", resultFrame(xferID, wire.RuntimePrepareResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.TransferCapacity}))
		if vs := checksNamed(l.Final(*w.now+int64(transferExchange)+1), CheckTimingTransfer); len(vs) != 0 {
			t.Fatalf("violations: %v", vs)
		}
	})
}
