package check

import "testing"

func TestRunEventLimitReachedAndFailedIsClean(t *testing.T) {
	l := NewLedger()
	l.CoreEventLimit(3)
	for i := range 3 {
		l.RunEventPersisted(int64(i+1), "t1")
	}
	l.TurnFinished(9, "t1", "r1", TurnFailed, codeEventPersistenceFailed)
	only(t, l, "", "")
	if l.marks[MarkRunEventLimit] != 1 {
		t.Fatalf("limit not marked: %v", l.Marks())
	}
}

func TestRunEventPersistedAboveTheLimitIsCaught(t *testing.T) {
	l := NewLedger()
	l.CoreEventLimit(2)
	for i := range 3 {
		l.RunEventPersisted(int64(i+1), "t1")
	}
	only(t, l, CheckRunEventLimit, "Core persisted run event 3 of turn t1, above its limit of 2")
}

func TestRunEventLimitFailureBeforeTheLimitIsCaught(t *testing.T) {
	l := NewLedger()
	l.CoreEventLimit(5)
	l.RunEventPersisted(1, "t1")
	l.TurnFinished(2, "t1", "r1", TurnFailed, codeEventPersistenceFailed)
	only(t, l, CheckRunEventLimit, "after 1 run events, not at its limit of 5")
}

func TestRunEventLimitUnconfiguredIsNotJudged(t *testing.T) {
	l := NewLedger()
	for i := range 40 {
		l.RunEventPersisted(int64(i+1), "t1")
	}
	l.TurnFinished(99, "t1", "r1", TurnCompleted, "")
	only(t, l, "", "")
}
