package check

import (
	"strconv"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

// fillRecords grants n admissions on connection 1 at one-millisecond
// steps from at, each released at once: n terminal records in grant
// order (request IDs x-p-0 ... and handles x-h-0 ...).
func fillRecords(h *hostileWire, at int64, n int) int64 {
	for i := range n {
		id, handle := "x-p-"+strconv.Itoa(i), "x-h-"+strconv.Itoa(i)
		h.answer(at, id, wire.PreparationStatus{Handle: handle, ExecutorID: "ex-1", Revision: 1, State: wire.StateReady})
		h.answer(at+ms/2, id, wire.PreparationStatus{Handle: handle, ExecutorID: "ex-1", Revision: 2, State: wire.StateReleased})
		at += ms
	}
	return at
}

func releaseRecord(h *hostileWire, at int64, i int) []byte {
	id := "x-p-" + strconv.Itoa(i)
	raw := encode(h.t, id, wire.ExecutionRelease{Handle: "x-h-" + strconv.Itoa(i)})
	h.forge(at, HostileProbe{Action: HostileReleaseRecord, ReplyID: id, Want: []string{wire.StateReleased}, Cond: CondEvicted}, raw)
	return raw
}

// TestRecordEvictionOldestTerminal: after 66 grants the two oldest
// terminal records are gone; the others answer as records.
func TestRecordEvictionOldestTerminal(t *testing.T) {
	t.Run("evicted record answers unknown", func(t *testing.T) {
		h := newHostileWire(t)
		at := fillRecords(h, 10*ms, DocumentedAdmissionRecordsMax+2)
		releaseRecord(h, at, 1)
		h.answer(at+2*ms, "x-p-1", wire.PreparationStatus{State: wire.StateRejected, ErrorCode: "unknown_preparation",
			Operation: wire.TypeExecutionRelease})
		h.tick(at + 10e9)
		h.clean()
		if n := h.refusals(HostileReleaseRecord); n != 1 {
			t.Fatalf("refusals %d, want 1", n)
		}
	})
	t.Run("evicted record kept", func(t *testing.T) {
		h := newHostileWire(t)
		at := fillRecords(h, 10*ms, DocumentedAdmissionRecordsMax+2)
		releaseRecord(h, at, 0)
		h.answer(at+2*ms, "x-p-0", wire.PreparationStatus{Handle: "x-h-0", ExecutorID: "ex-1", Revision: 2, State: wire.StateReleased})
		h.tick(at + 10e9)
		h.want(CheckHostileRefusal, "documented rejected/unknown_preparation")
	})
	t.Run("kept record forgotten", func(t *testing.T) {
		h := newHostileWire(t)
		at := fillRecords(h, 10*ms, DocumentedAdmissionRecordsMax+2)
		releaseRecord(h, at, DocumentedAdmissionRecordsMax)
		h.answer(at+2*ms, "x-p-"+strconv.Itoa(DocumentedAdmissionRecordsMax), wire.PreparationStatus{State: wire.StateRejected,
			ErrorCode: "unknown_preparation", Operation: wire.TypeExecutionRelease})
		h.tick(at + 10e9)
		h.want(CheckHostileRefusal, "documented released")
	})
	t.Run("live records are never evicted", func(t *testing.T) {
		h := newHostileWire(t)
		// the first record stays live (ready); the second is the oldest terminal
		h.answer(ms, "x-live", wire.PreparationStatus{Handle: "x-h-live", ExecutorID: "ex-9", Revision: 1, State: wire.StateReady})
		at := fillRecords(h, 10*ms, DocumentedAdmissionRecordsMax)
		raw := encode(t, "x-live", wire.ExecutionRelease{Handle: "x-h-live"})
		h.forge(at, HostileProbe{Action: HostileReleaseRecord, ReplyID: "x-live", Want: []string{wire.StateReleased}, Cond: CondEvicted}, raw)
		h.answer(at+2*ms, "x-live", wire.PreparationStatus{Handle: "x-h-live", ExecutorID: "ex-9", Revision: 2, State: wire.StateReleased})
		releaseRecord(h, at+3*ms, 0)
		h.answer(at+5*ms, "x-p-0", wire.PreparationStatus{State: wire.StateRejected, ErrorCode: "unknown_preparation",
			Operation: wire.TypeExecutionRelease})
		h.tick(at + 10e9)
		h.clean()
	})
}

// An attack on the injector's own admission held back (a stall) until
// the admission expired and later grants evicted its record finds the
// request unknown: unknown_preparation is the documented answer, whatever
// the attack would get from a live record; while the record is held it
// still gets that.
func TestOwnAdmissionAttackOnAnEvictedRecord(t *testing.T) {
	start := func(h *hostileWire, at int64) {
		raw := encode(h.t, "x-own", wire.ExecutionStart{ExecutorID: "x-e-1", Handle: "x-h-own", RunID: "x-r-1",
			Input: wire.MessageInput{{Content: []wire.InputContent{wire.TextPart("wrong executor")}}}})
		h.forge(at, HostileProbe{Action: HostileStartWrongExecutor, ReplyID: "x-own",
			Want: []string{"rejected/unknown_executor"}}, raw)
	}
	unknown := wire.PreparationStatus{State: wire.StateRejected, ErrorCode: "unknown_preparation",
		Operation: wire.TypeExecutionStart}
	grantOwn := func(h *hostileWire) {
		h.answer(ms, "x-own", wire.PreparationStatus{Handle: "x-h-own", ExecutorID: "ex-9", Revision: 1, State: wire.StateReady})
		h.answer(2*ms, "x-own", wire.PreparationStatus{Handle: "x-h-own", ExecutorID: "ex-9", Revision: 2, State: wire.StateExpired})
	}
	t.Run("evicted", func(t *testing.T) {
		h := newHostileWire(t)
		grantOwn(h)
		at := fillRecords(h, 10*ms, DocumentedAdmissionRecordsMax)
		start(h, at)
		h.answer(at+2*ms, "x-own", unknown)
		h.tick(at + 10e9)
		h.clean()
		if n := h.refusals(HostileStartWrongExecutor); n != 1 {
			t.Fatalf("refusals %d, want 1", n)
		}
	})
	t.Run("held", func(t *testing.T) {
		h := newHostileWire(t)
		grantOwn(h)
		at := fillRecords(h, 10*ms, DocumentedAdmissionRecordsMax-1)
		start(h, at)
		h.answer(at+2*ms, "x-own", unknown)
		h.tick(at + 10e9)
		h.want(CheckHostileRefusal, "documented rejected/unknown_executor")
	})
}
