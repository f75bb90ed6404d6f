package check

import (
	"strings"
	"testing"
)

func subscriberViolations(l *Ledger) []string {
	var out []string
	for _, v := range l.Violations() {
		if v.Check == CheckSubscriberStream {
			out = append(out, v.Message)
		}
	}
	return out
}

func wantSubscriber(t *testing.T, l *Ledger, substr string) {
	t.Helper()
	vs := subscriberViolations(l)
	for _, m := range vs {
		if substr != "" && strings.Contains(m, substr) {
			return
		}
	}
	if substr == "" && len(vs) == 0 {
		return
	}
	t.Fatalf("want subscriber violation %q, got %q", substr, vs)
}

// TestSubscriberStreams: each subscriber gets the store's events in
// order and one close; an overflow ends only that stream, with the
// overflow error, in the step Core takes it, writing nothing.
func TestSubscriberStreams(t *testing.T) {
	open := func(l *Ledger, id string, capacity int) {
		l.SubscriberOpened(1, id, "t-1")
		l.SubscriberAnswered(1, id, "")
	}
	t.Run("in order then closed", func(t *testing.T) {
		l := NewLedger()
		open(l, "s1", 0)
		l.SubscriberObserved(2, "s1", "t-1", 1, false, "", []uint64{1})
		l.SubscriberObserved(3, "s1", "t-1", 2, false, "", []uint64{1, 2})
		l.SubscriberObserved(4, "s1", "t-1", 0, true, "", []uint64{1, 2})
		wantSubscriber(t, l, "")
	})
	t.Run("gap", func(t *testing.T) {
		l := NewLedger()
		open(l, "s1", 0)
		l.SubscriberObserved(2, "s1", "t-1", 2, false, "", []uint64{1, 2})
		wantSubscriber(t, l, "got event seq 2 as its event 1")
	})
	t.Run("closed early", func(t *testing.T) {
		l := NewLedger()
		open(l, "s1", 0)
		l.SubscriberObserved(4, "s1", "t-1", 0, true, "", []uint64{1, 2})
		wantSubscriber(t, l, "closed after 0 of the 2 persisted events")
	})
	t.Run("after close", func(t *testing.T) {
		l := NewLedger()
		open(l, "s1", 0)
		l.SubscriberObserved(4, "s1", "t-1", 0, true, "", nil)
		l.SubscriberObserved(5, "s1", "t-1", 1, false, "", []uint64{1})
		wantSubscriber(t, l, "after its stream closed")
	})
	t.Run("overflow without error", func(t *testing.T) {
		l := NewLedger()
		open(l, "slow", 1)
		l.SubscriberOverflowed(2, "slow")
		l.SubscriberOverflowStepping(2, "slow")
		l.SubscriberObserved(2, "slow", "t-1", 0, true, "", []uint64{1, 2})
		l.SubscriberOverflowStepped(2, "slow", 0)
		wantSubscriber(t, l, "not the overflow error")
	})
	t.Run("overflow touches another", func(t *testing.T) {
		l := NewLedger()
		open(l, "slow", 1)
		open(l, "s2", 0)
		l.SubscriberOverflowed(2, "slow")
		l.SubscriberOverflowStepping(2, "slow")
		l.SubscriberObserved(2, "s2", "t-1", 0, true, "", nil)
		l.SubscriberObserved(2, "slow", "t-1", 0, true, subscriberOverflowText, nil)
		l.SubscriberOverflowStepped(2, "slow", 0)
		wantSubscriber(t, l, "stepping the overflow of slow")
	})
	t.Run("overflow left open or writes", func(t *testing.T) {
		l := NewLedger()
		open(l, "slow", 1)
		l.SubscriberOverflowed(2, "slow")
		l.SubscriberOverflowStepping(2, "slow")
		l.SubscriberOverflowStepped(2, "slow", 1)
		wantSubscriber(t, l, "durable writes")
		wantSubscriber(t, l, "did not end the overflowed subscriber")
	})
	t.Run("overflow error unasked", func(t *testing.T) {
		l := NewLedger()
		open(l, "s1", 0)
		l.SubscriberObserved(2, "s1", "t-1", 0, true, subscriberOverflowText, nil)
		wantSubscriber(t, l, "reported no overflow")
	})
	t.Run("documented overflow", func(t *testing.T) {
		l := NewLedger()
		open(l, "slow", 1)
		l.SubscriberOverflowed(2, "slow")
		l.SubscriberOverflowStepping(2, "slow")
		l.SubscriberObserved(2, "slow", "t-1", 0, true, subscriberOverflowText, []uint64{1, 2})
		l.SubscriberOverflowStepped(2, "slow", 0)
		wantSubscriber(t, l, "")
		if l.marks[MarkSubscriberOverflow] != 1 {
			t.Fatalf("mark %d, want 1", l.marks[MarkSubscriberOverflow])
		}
	})
}
