package sim

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// backlogRun dials a->b (10 ms latency), applies faults and has a read its
// backlog on the connection at each of at; it returns the readings.
func backlogRun(t *testing.T, faults []Fault, at ...time.Duration) []string {
	t.Helper()
	var got []string
	s := fixedNet(1)
	s.Heal = 20 * time.Second
	s.Faults = faults
	opts := Options{Schedule: s, Setup: func(w *Kernel) {
		var conn ConnID
		w.AddNode("a", func() Node {
			return NodeFunc(func(now time.Time, ev Event) []Effect {
				switch e := ev.(type) {
				case Start:
					out := []Effect{Dial{Peer: "b"}}
					for i, d := range at {
						out = append(out, SetTimer{TimerID(fmt.Sprint(i)), Epoch.Add(d)})
					}
					return out
				case ConnOpened:
					conn = e.Conn
				case TimerFired:
					b := w.Backlog("a", conn)
					got = append(got, fmt.Sprintf("held=%v delay=%v", b.Held, b.Delay))
				}
				return nil
			})
		})
		w.AddNode("b", func() Node { return NodeFunc(func(time.Time, Event) []Effect { return nil }) })
	}}
	if r := Run(1, opts); r.Failed() {
		t.Fatal(r.Report())
	}
	return got
}

func TestBacklogShowsStallsAndSlowLinks(t *testing.T) {
	ms := time.Millisecond
	got := backlogRun(t, []Fault{
		{At: 100 * ms, Kind: FaultStall, For: time.Second},                        // c1 a->b
		{At: 2 * time.Second, Kind: FaultSlow, For: time.Second, Extra: 300 * ms}, // c1 a->b
	}, 50*ms, 500*ms, 1500*ms, 2500*ms, 4*time.Second)
	want := []string{"held=false delay=0s", "held=true delay=0s", "held=false delay=0s",
		"held=false delay=300ms", "held=false delay=0s"}
	if !slices.Equal(got, want) {
		t.Fatalf("backlog readings %q, want %q", got, want)
	}
}

// TestFrameBacklogFollowsOneFrame: a frame written at 1 s into a stall
// (0.5 s to 2 s) is held; the stall releases it at 2 s onto a link slowed
// by 3 s from 1.5 s, so at 2.5 s it is due 2.5 s later than a frame on a
// free link; once delivered (5.01 s) nothing is left of its write.
func TestFrameBacklogFollowsOneFrame(t *testing.T) {
	ms := time.Millisecond
	var got []string
	s := fixedNet(1)
	s.Heal = 20 * time.Second
	s.Faults = []Fault{
		{At: 500 * ms, Kind: FaultStall, For: 1500 * ms},
		{At: 1500 * ms, Kind: FaultSlow, For: 5 * time.Second, Extra: 3 * time.Second},
	}
	frame := []byte(`{"type":"x"}`)
	other := []byte(`{"type":"x"}`) // same bytes, another frame
	opts := Options{Schedule: s, Setup: func(w *Kernel) {
		var conn ConnID
		w.AddNode("a", func() Node {
			return NodeFunc(func(now time.Time, ev Event) []Effect {
				switch e := ev.(type) {
				case Start:
					return []Effect{Dial{Peer: "b"}, SetTimer{"send", Epoch.Add(time.Second)},
						SetTimer{"0", Epoch.Add(1200 * ms)}, SetTimer{"1", Epoch.Add(2500 * ms)}, SetTimer{"2", Epoch.Add(6 * time.Second)}}
				case ConnOpened:
					conn = e.Conn
				case TimerFired:
					if e.Timer == "send" {
						return []Effect{Send{Conn: conn, Frame: frame}}
					}
					b, o := w.FrameBacklog("a", conn, frame), w.FrameBacklog("a", conn, other)
					got = append(got, fmt.Sprintf("held=%v delay=%v other=%v", b.Held, b.Delay, o))
				}
				return nil
			})
		})
		w.AddNode("b", func() Node { return NodeFunc(func(time.Time, Event) []Effect { return nil }) })
	}}
	if r := Run(1, opts); r.Failed() {
		t.Fatal(r.Report())
	}
	want := []string{"held=true delay=0s other={false 0s}", "held=false delay=2.5s other={false 0s}", "held=false delay=0s other={false 0s}"}
	if !slices.Equal(got, want) {
		t.Fatalf("frame backlog readings %q, want %q", got, want)
	}
}

// TestBestEffortFrameDroppedPastItsBudget: frames a sends at 1 s into a
// stall of a->b (0.1 s to 3.1 s) are held; at the release, a best-effort
// frame whose 2 s budget ran out (at 3 s) is dropped, reported dropped
// and never delivered, one whose 2.5 s budget has not is delivered, and
// the ordinary frames around them are delivered in order: the connection
// stays open.
func TestBestEffortFrameDroppedPastItsBudget(t *testing.T) {
	ms := time.Millisecond
	var got, taps []string
	s := fixedNet(1)
	s.Heal = 20 * time.Second
	s.Faults = []Fault{{At: 100 * ms, Kind: FaultStall, For: 3 * time.Second}} // c1 a->b
	opts := Options{Schedule: s, Setup: func(w *Kernel) {
		w.Tap(func(ev TapEvent) {
			if ev.Kind == TapDropped || ev.Kind == TapClosed || ev.Kind == TapLost {
				taps = append(taps, fmt.Sprintf("%s %s %s", ev.Kind, ev.Frame, ev.Reason))
			}
		})
		var conn ConnID
		w.AddNode("a", func() Node {
			return NodeFunc(func(now time.Time, ev Event) []Effect {
				switch e := ev.(type) {
				case Start:
					return []Effect{Dial{Peer: "b"}, SetTimer{"send", Epoch.Add(time.Second)}}
				case ConnOpened:
					conn = e.Conn
				case TimerFired:
					return []Effect{Send{Conn: conn, Frame: []byte("keep")},
						Send{Conn: conn, Frame: []byte("cancel"), Budget: 2 * time.Second},
						Send{Conn: conn, Frame: []byte("soon"), Budget: 2500 * ms},
						Send{Conn: conn, Frame: []byte("after")}}
				}
				return nil
			})
		})
		w.AddNode("b", deliveriesTo(&got))
	}}
	r := Run(1, opts)
	if r.Failed() {
		t.Fatal(r.Report())
	}
	want := []string{"keep@3.110000000", "soon@3.110000000", "after@3.110000000"}
	if !slices.Equal(got, want) {
		t.Fatalf("delivered %q, want %q", got, want)
	}
	if wantTaps := []string{"dropped cancel " + ReasonBudget}; !slices.Equal(taps, wantTaps) {
		t.Fatalf("taps %q, want %q", taps, wantTaps)
	}
	if r.Stats.FramesDropped != 1 || r.Stats.FramesLost != 0 {
		t.Fatalf("stats %+v", r.Stats)
	}
}
