package server

import (
	"context"
	"errors"
	"testing"

	"github.com/turnstile-sim/turnstile/core"
)

// Regression: a subscription that dropped an event and was then closed
// normally by the machine in the same step ended with no error, so the
// reader never learnt it had lost events.
func TestOverflowThenCloseEndsWithOverflowError(t *testing.T) {
	sub := &Subscription{ID: "sub-1", Turn: "t-1", max: 1, notify: make(chan struct{}, 1)}
	if !sub.push(core.Observation{Subscriber: "sub-1", Turn: "t-1", Event: &core.RunEvent{Seq: 1}}) {
		t.Fatal("first event refused with room in the buffer")
	}
	if sub.push(core.Observation{Subscriber: "sub-1", Turn: "t-1", Event: &core.RunEvent{Seq: 2}}) {
		t.Fatal("second event taken past the buffer")
	}
	sub.finish(nil)
	ctx := context.Background()
	o, _ := sub.Next(ctx)
	if o.Closed || o.Event == nil || o.Event.Seq != 1 {
		t.Fatalf("first observation %+v, want event 1", o)
	}
	o, _ = sub.Next(ctx)
	if !o.Closed || !errors.Is(o.Err, core.ErrSubscriberOverflow) {
		t.Fatalf("closing observation %+v, want the overflow error", o)
	}
}

func TestCleanCloseHasNoError(t *testing.T) {
	sub := &Subscription{ID: "sub-1", Turn: "t-1", max: 4, notify: make(chan struct{}, 1)}
	sub.push(core.Observation{Subscriber: "sub-1", Turn: "t-1", Event: &core.RunEvent{Seq: 1}})
	sub.finish(nil)
	ctx := context.Background()
	sub.Next(ctx)
	if o, _ := sub.Next(ctx); !o.Closed || o.Err != nil {
		t.Fatalf("closing observation %+v, want a clean close", o)
	}
}
