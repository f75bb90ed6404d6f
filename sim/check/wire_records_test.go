package check

import (
	"errors"
	"slices"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

func TestWireEventsReachObserversInOrder(t *testing.T) {
	l := NewLedger()
	var seen []string
	l.wireObservers = append(l.wireObservers,
		func(ev WireEvent) { seen = append(seen, "first "+ev.Kind) },
		func(ev WireEvent) { seen = append(seen, "second "+ev.Kind) })
	l.Wire(WireEvent{Kind: WireSent, Raw: []byte("{}"), DecodeErr: errors.New("bad")})
	l.Wire(WireEvent{Kind: WireClosed})
	want := []string{"first sent", "second sent", "first closed", "second closed"}
	if !slices.Equal(seen, want) {
		t.Fatalf("observers saw %q, want %q", seen, want)
	}
}

func TestWireEventHasFrame(t *testing.T) {
	cases := []struct {
		ev   WireEvent
		want bool
	}{
		{WireEvent{Kind: WireOpened}, false},
		{WireEvent{Kind: WireSent, Raw: []byte("x"), DecodeErr: errors.New("bad")}, false},
		{WireEvent{Kind: WireSent, Raw: []byte("x"), Frame: wire.Frame{ID: "r"}}, true},
	}
	for _, c := range cases {
		if got := c.ev.HasFrame(); got != c.want {
			t.Errorf("%+v: HasFrame %v, want %v", c.ev, got, c.want)
		}
	}
}
