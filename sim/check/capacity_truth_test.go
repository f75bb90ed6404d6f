package check

import "testing"

func TestTruthCapacityCountsExecutorsNotConfirmedClosed(t *testing.T) {
	l := NewLedger()
	l.DeviceConfigured("d1", DeviceLimits{ActiveMax: 1, ExecutorsMax: 2})
	l.ExecutorCreated(1, "d1", "e1")
	l.ExecutorCreated(2, "d1", "e2")
	only(t, l, "", "")
	// e1's close is pending (no ExecutorClosed): a third executor exceeds.
	l.ExecutorCreated(3, "d1", "e3")
	only(t, l, CheckCapacity, "holds 3 native executors (3 open, 0 being created) > 2")
}

func TestTruthCapacityFreedByConfirmedClose(t *testing.T) {
	l := NewLedger()
	l.DeviceConfigured("d1", DeviceLimits{ActiveMax: 1, ExecutorsMax: 2})
	l.ExecutorCreated(1, "d1", "e1")
	l.ExecutorCreated(2, "d1", "e2")
	l.ExecutorClosed(3, "d1", "e1")
	l.ExecutorCreated(4, "d1", "e3")
	only(t, l, "", "")
}

func TestTruthCapacityActiveTurns(t *testing.T) {
	l := NewLedger()
	l.DeviceConfigured("d1", DeviceLimits{ActiveMax: 1, ExecutorsMax: 4})
	l.TurnCreated(1, "d1", "r1")
	l.TurnSettled(2, "r1", NativeCompleted)
	l.TurnCreated(3, "d1", "r2")
	only(t, l, "", "")
	l.TurnCreated(4, "d1", "r3")
	only(t, l, CheckCapacity, "2 unsettled native turns > active_max 1")
}

func TestShutdownReportCompleteWithClosePending(t *testing.T) {
	l := NewLedger()
	l.ExecutorCreated(1, "d1", "e1")
	l.ShutdownReported(2, "d1", false, 1)
	only(t, l, "", "")
	l.ShutdownReported(3, "d1", true, 0)
	only(t, l, CheckShutdownReport, "still holds executor e1")
}

func TestShutdownReportCompleteWithTurnUnsettled(t *testing.T) {
	l := NewLedger()
	l.TurnCreated(1, "d1", "r1")
	l.ShutdownReported(3, "d1", true, 0)
	only(t, l, CheckShutdownReport, "native turn of run r1")
}

func TestShutdownReportCompleteListingOwned(t *testing.T) {
	l := NewLedger()
	l.ShutdownReported(3, "d1", true, 2)
	only(t, l, CheckShutdownReport, "listing 2 owned")
}

func TestShutdownReportCompleteAfterClosesIsClean(t *testing.T) {
	l := NewLedger()
	l.ExecutorCreated(1, "d1", "e1")
	l.ExecutorCreated(1, "d2", "e1")
	l.TurnCreated(1, "d1", "r1")
	l.TurnSettled(2, "r1", NativeCompleted)
	l.ExecutorClosed(3, "d1", "e1")
	l.ShutdownReported(4, "d1", true, 0)
	only(t, l, "", "")
}

func TestExecutorsBeingCreatedCountAgainstTheLimit(t *testing.T) {
	l := NewLedger()
	l.DeviceConfigured("d1", DeviceLimits{ActiveMax: 1, ExecutorsMax: 2})
	l.ExecutorCreated(1, "d1", "e1")
	l.NativePrepareCalled(2, "d1", "e2")
	only(t, l, "", "")
	// e1 is closing (its close not confirmed) and e2 is being created:
	// a third Prepare exceeds the limit before anything is created.
	l.NativePrepareCalled(3, "d1", "e3")
	only(t, l, CheckCapacity, "holds 3 native executors (1 open, 2 being created) > 2")
}

func TestAFailedOrCrashedPrepareHoldsNoExecutor(t *testing.T) {
	l := NewLedger()
	l.DeviceConfigured("d1", DeviceLimits{ActiveMax: 1, ExecutorsMax: 2})
	l.ExecutorCreated(1, "d1", "e1")
	l.NativePrepareCalled(2, "d1", "e2")
	l.NativePrepareFailed(3, "d1", "e2")
	l.NativePrepareCalled(4, "d1", "e3")
	l.ExecutorCreated(5, "d1", "e3") // created: counted once, as open
	only(t, l, "", "")
	l.NativePrepareCalled(6, "d1", "e4")
	l.NodeCrashed(7, "d1")               // the Harness died with its Prepares and executors
	l.NativePrepareCalled(8, "d1", "e5") // e1 and e3 not yet reported closed
	only(t, l, CheckCapacity, "holds 3 native executors (2 open, 1 being created) > 2")
}
