package check

import (
	"slices"
	"testing"
)

func TestExpectedMarksAreSortedAndUnique(t *testing.T) {
	marks := ExpectedMarks()
	if len(marks) != 84+len(hostileExpectedMarks())+len(projectionExpectedMarks)+len(failoverExpectedMarks)+len(engineExpectedMarks) {
		t.Fatalf("%d expected marks", len(marks))
	}
	if !slices.IsSorted(marks) || len(slices.Compact(slices.Clone(marks))) != len(marks) {
		t.Fatalf("not sorted and unique: %v", marks)
	}
}

func TestLedgerCountsMarks(t *testing.T) {
	l := NewLedger()
	l.Mark(MarkStaleRevisionIgnored)
	l.Mark(MarkCancelRacedDone)
	l.Mark(MarkStaleRevisionIgnored)
	got := l.Marks()
	want := []MarkCount{{MarkCancelRacedDone, 1}, {MarkStaleRevisionIgnored, 2}}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v want %v", got, want)
	}
}
