package sim

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// sendAt30ms dials b, then sends frames 10ms after the connection opened.
func sendAt30ms(frames ...string) func(time.Time, Event) []Effect {
	var conn ConnID
	return func(now time.Time, ev Event) []Effect {
		switch e := ev.(type) {
		case Start:
			return []Effect{Dial{Peer: "b"}}
		case ConnOpened:
			conn = e.Conn
			return []Effect{SetTimer{Timer: "send", At: now.Add(10 * time.Millisecond)}}
		case TimerFired:
			var out []Effect
			for _, f := range frames {
				out = append(out, Send{Conn: conn, Frame: []byte(f)})
			}
			return out
		}
		return nil
	}
}

// recvs returns b's receive lines.
func recvs(log []string) []string {
	var out []string
	for _, l := range log {
		if strings.Contains(l, " b recv ") {
			out = append(out, l)
		}
	}
	return out
}

func forgedTaps(forged *[]string) func(w *Kernel) {
	return func(w *Kernel) {
		w.Tap(func(ev TapEvent) {
			if ev.Forged {
				*forged = append(*forged, tapLine(ev))
			}
		})
	}
}

func TestProxyRewritesOneDirectionInOrderAndTapsForgeries(t *testing.T) {
	var taps, forged []string
	log, res := runScript(t, sendAt30ms("x", "y"), nil, func(w *Kernel) {
		tapInto(&taps)(w)
		forgedTaps(&forged)(w)
		w.At(Epoch.Add(25*time.Millisecond), "", func() {
			if !w.SetProxy(1, "a", func(f []byte) []ProxyFrame {
				if string(f) == "y" {
					return nil // dropped
				}
				return []ProxyFrame{{Frame: f}, {Frame: []byte("x2"), Forged: true}}
			}) {
				t.Error("SetProxy on an open connection must succeed")
			}
		})
	})
	got := recvs(log)
	if len(got) != 2 || !strings.HasSuffix(got[0], "hex=78") || !strings.HasSuffix(got[1], "hex=7832") {
		t.Fatalf("b must see x then the forged x2, and not y:\n%q\nlog:\n%s", got, strings.Join(log, "\n"))
	}
	wantForged := []string{`0.030000000 sent c1 a>b "x2"`, `0.040000000 delivered c1 a>b "x2"`}
	if !slices.Equal(forged, wantForged) {
		t.Fatalf("forged taps:\n%q\nwant:\n%q", forged, wantForged)
	}
	if !slices.Contains(taps, `0.030000000 lost c1 a>b "y" reason="dropped by a proxy"`) {
		t.Fatalf("a frame the proxy drops is reported lost:\n%q", taps)
	}
	if res.Stats.FramesForged != 1 {
		t.Fatalf("FramesForged = %d, want 1", res.Stats.FramesForged)
	}
}

func TestForgeQueuesBehindSentFramesAndRefusesDeadConnections(t *testing.T) {
	var taps []string
	log, _ := runScript(t, sendAt30ms("x"), nil, func(w *Kernel) {
		tapInto(&taps)(w)
		w.At(Epoch.Add(30*time.Millisecond), "", func() {
			if !w.Forge(1, "a", []byte("f")) {
				t.Error("Forge on an open connection must succeed")
			}
			if w.Forge(1, "nobody", []byte("f")) || w.Forge(9, "a", []byte("f")) {
				t.Error("Forge must refuse an unknown end or connection")
			}
			w.ClearProxy(9, "a") // no-op on an unknown connection
		})
		w.At(Epoch.Add(50*time.Millisecond), "", func() {
			w.Crash("b")
			if w.Forge(1, "b", []byte("f")) {
				t.Error("Forge from a crashed end must fail")
			}
		})
	})
	// The timer of a fires after the forge at the same instant: the
	// forged frame was queued first and arrives first.
	order := recvs(log)
	if len(order) != 2 || !strings.HasSuffix(order[0], "hex=66") || !strings.HasSuffix(order[1], "hex=78") {
		t.Fatalf("deliveries in queue order:\n%s", strings.Join(order, "\n"))
	}
}

func TestProxyTooBigForgeryClosesTheConnection(t *testing.T) {
	var taps []string
	runScript(t, sendAt30ms("x"), nil, func(w *Kernel) {
		tapInto(&taps)(w)
		w.At(Epoch.Add(25*time.Millisecond), "", func() {
			w.SetProxy(1, "a", func(f []byte) []ProxyFrame {
				return []ProxyFrame{{Frame: make([]byte, FrameBytesMax+1), Forged: true}}
			})
		})
	})
	joined := strings.Join(taps, "\n")
	if !strings.Contains(joined, "reason=\"message too big") {
		t.Fatalf("an oversized forgery closes the connection like any oversized frame:\n%s", joined)
	}
}

// OpenConn answers for one connection what OpenConns lists: nothing before
// both ends saw it open, its ends while open, nothing once an end crashed.
func TestOpenConnAgreesWithOpenConns(t *testing.T) {
	type probe struct {
		listed []ConnInfo
		one    ConnInfo
		ok     bool
	}
	var got []probe
	look := func(w *Kernel) func() {
		return func() {
			one, ok := w.OpenConn(1)
			got = append(got, probe{w.OpenConns(), one, ok})
			if _, ok := w.OpenConn(9); ok {
				t.Error("OpenConn(9): no such connection")
			}
		}
	}
	runScript(t, sendAt30ms("x"), nil, func(w *Kernel) {
		for _, ms := range []int{5, 25, 60} {
			w.At(Epoch.Add(time.Duration(ms)*time.Millisecond), "", look(w))
		}
		w.At(Epoch.Add(50*time.Millisecond), "", func() { w.Crash("b") })
	})
	want := ConnInfo{ID: 1, Dialer: "a", Acceptor: "b"}
	if len(got) != 3 {
		t.Fatalf("%d probes, want 3", len(got))
	}
	for i, p := range got {
		switch {
		case p.ok != (len(p.listed) == 1):
			t.Errorf("probe %d: OpenConn ok=%v, OpenConns %v", i, p.ok, p.listed)
		case p.ok && (p.one != want || p.listed[0] != want):
			t.Errorf("probe %d: OpenConn %v, OpenConns %v, want %v", i, p.one, p.listed, want)
		}
	}
	if got[0].ok || !got[1].ok || got[2].ok {
		t.Fatalf("open at 5/25/60 ms: %v %v %v, want false true false", got[0].ok, got[1].ok, got[2].ok)
	}
}
