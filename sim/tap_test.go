package sim

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

func tapLine(ev TapEvent) string {
	s := fmt.Sprintf("%s %s c%d %s>%s", FormatTime(Epoch.Add(time.Duration(ev.At))), ev.Kind, ev.Conn, ev.From, ev.To)
	if ev.Frame != nil {
		s += fmt.Sprintf(" %q", ev.Frame)
	}
	if ev.Reason != "" {
		s += fmt.Sprintf(" reason=%q", ev.Reason)
	}
	return s
}

func tapInto(taps *[]string) func(w *Kernel) {
	return func(w *Kernel) { w.Tap(func(ev TapEvent) { *taps = append(*taps, tapLine(ev)) }) }
}

func TestTapSeesSendsDeliveriesOpensAndCloses(t *testing.T) {
	var taps []string
	a := dialOnStart("b", func(now time.Time, c ConnID) []Effect {
		return []Effect{Send{Conn: c, Frame: []byte("x")}, Close{c, "bye"}, Send{Conn: c, Frame: []byte("z")}}
	})
	runScript(t, a, nil, tapInto(&taps))
	want := []string{
		"0.010000000 opened c1 a>b",
		"0.020000000 opened c1 b>a",
		`0.020000000 sent c1 a>b "x"`,
		`0.020000000 closed c1 a>a reason="bye"`,
		`0.030000000 delivered c1 a>b "x"`,
		`0.030000000 closed c1 a>b reason="bye"`,
	}
	if !slices.Equal(taps, want) {
		t.Fatalf("taps:\n%q\nwant:\n%q", taps, want)
	}
}

func TestTapReportsFramesLostWithTheConnection(t *testing.T) {
	var taps []string
	a := dialOnStart("b", func(now time.Time, c ConnID) []Effect {
		return []Effect{Send{Conn: c, Frame: []byte("gone")}}
	})
	runScript(t, a, nil, func(w *Kernel) {
		tapInto(&taps)(w)
		w.At(Epoch.Add(25*time.Millisecond), "crash b", func() { w.Crash("b") })
	})
	if !slices.Contains(taps, `0.030000000 lost c1 a>b "gone" reason="in flight"`) {
		t.Fatalf("a frame in flight to a crashed node must be reported lost:\n%q", taps)
	}
	if slices.ContainsFunc(taps, func(s string) bool { return len(s) > 12 && s[12:21] == "delivered" }) {
		t.Fatalf("nothing reaches a crashed node:\n%q", taps)
	}
}

func TestTapRefusedAfterStart(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Tap after the run started must panic")
		}
	}()
	a := func(now time.Time, ev Event) []Effect { return nil }
	var w *Kernel
	runScript(t, a, nil, func(wd *Kernel) {
		w = wd
		wd.At(Epoch, "late tap", func() { w.Tap(func(TapEvent) {}) })
	})
}
