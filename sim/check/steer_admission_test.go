package check

import "testing"

// steerCalls makes n steer calls of t-1 (sequences from first) and admits
// them in reverse order, as delayed answers may come back.
func steerCalls(l *Ledger, first uint64, n int) {
	for i := range n {
		l.SteerCalled(first+uint64(i), "t-1")
	}
	for i := n - 1; i >= 0; i-- {
		l.SteerCallAnswered(int64(i+1), first+uint64(i), "t-1", SteerAdmitted)
	}
}

func TestSteerInputsPerRun(t *testing.T) {
	t.Run("256 admitted then refused", func(t *testing.T) {
		l := NewLedger()
		steerCalls(l, 1, 256)
		l.SteerCalled(300, "t-1")
		l.SteerCallAnswered(300, 300, "t-1", SteerLimitRefused)
		only(t, l, "", "")
	})
	t.Run("257th admitted", func(t *testing.T) {
		l := NewLedger()
		steerCalls(l, 1, 257)
		only(t, l, CheckSteerInputsPerRun, "Core admitted 257 steers of turn t-1")
	})
	t.Run("refused early", func(t *testing.T) {
		l := NewLedger()
		steerCalls(l, 1, 255)
		l.SteerCalled(300, "t-1")
		l.SteerCallAnswered(300, 300, "t-1", SteerLimitRefused)
		only(t, l, CheckSteerInputsPerRun, "with at most 255 admitted before it")
	})
	t.Run("refused while earlier calls are unanswered or lost", func(t *testing.T) {
		l := NewLedger()
		steerCalls(l, 1, 254)
		l.SteerCalled(255, "t-1")
		l.SteerCalled(256, "t-1")
		l.SteerCallAnswered(0, 255, "t-1", SteerLost)
		l.SteerCalled(300, "t-1")
		l.SteerCallAnswered(300, 300, "t-1", SteerLimitRefused) // 256 unanswered: it may be admitted
		only(t, l, "", "")
	})
	t.Run("refused after a later call was admitted", func(t *testing.T) {
		// a refusal only counts the calls made before it
		l := NewLedger()
		steerCalls(l, 1, 255)
		l.SteerCalled(300, "t-1")
		l.SteerCalled(301, "t-1")
		l.SteerCallAnswered(301, 301, "t-1", SteerAdmitted)
		l.SteerCallAnswered(302, 300, "t-1", SteerLimitRefused)
		only(t, l, CheckSteerInputsPerRun, "with at most 255 admitted before it")
	})
}

func TestSteerAfterCancel(t *testing.T) {
	t.Run("steer made before the cancel, answered after it", func(t *testing.T) {
		l := NewLedger()
		l.SteerCalled(1, "t-1")
		l.CancelAnswered(5, 2, "t-1")
		l.SteerCallAnswered(6, 1, "t-1", SteerAdmitted)
		only(t, l, "", "")
	})
	t.Run("steer made after the cancel", func(t *testing.T) {
		l := NewLedger()
		l.CancelAnswered(5, 2, "t-1")
		l.SteerCalled(3, "t-1")
		l.SteerCallAnswered(6, 3, "t-1", SteerAdmitted)
		only(t, l, CheckSteerAfterCancel, "Core admitted a steer of turn t-1 made after a cancel it answered")
	})
	t.Run("cancel answered after the steer it should have held back", func(t *testing.T) {
		l := NewLedger()
		l.SteerCalled(3, "t-1")
		l.SteerCallAnswered(4, 3, "t-1", SteerAdmitted)
		l.CancelAnswered(5, 2, "t-1")
		only(t, l, CheckSteerAfterCancel, "made after a cancel it answered")
	})
	t.Run("another Turn", func(t *testing.T) {
		l := NewLedger()
		l.CancelAnswered(5, 2, "t-1")
		l.SteerCalled(3, "t-2")
		l.SteerCallAnswered(6, 3, "t-2", SteerAdmitted)
		only(t, l, "", "")
	})
}
