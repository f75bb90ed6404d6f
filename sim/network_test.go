package sim

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// recorder is a test node that logs its events and answers with a script.
type recorder struct {
	id     NodeID
	log    *[]string
	script func(now time.Time, ev Event) []Effect
}

func (r *recorder) Step(now time.Time, ev Event) []Effect {
	*r.log = append(*r.log, fmt.Sprintf("%s %s %s", FormatTime(now), r.id, describeForTest(ev)))
	if r.script == nil {
		return nil
	}
	return r.script(now, ev)
}

func describeForTest(ev Event) string {
	w := &Kernel{}
	return string(w.appendEvent(nil, ev))
}

// fixedNet is a schedule with no faults and a fixed 10ms latency.
func fixedNet(seed uint64) *Schedule {
	return &Schedule{Seed: seed, Heal: time.Second,
		Network: NetworkConfig{LatencyMin: int64(10 * time.Millisecond), LatencyMax: int64(10 * time.Millisecond)}}
}

func runScript(t *testing.T, a, b func(now time.Time, ev Event) []Effect, setup func(w *Kernel)) ([]string, Result) {
	t.Helper()
	var log []string
	opts := Options{Schedule: fixedNet(1), KeepTrace: true, Setup: func(w *Kernel) {
		w.AddNode("a", func() Node { return &recorder{id: "a", log: &log, script: a} })
		w.AddNode("b", func() Node { return &recorder{id: "b", log: &log, script: b} })
		if setup != nil {
			setup(w)
		}
	}}
	return log, Run(1, opts)
}

func dialOnStart(peer NodeID, then func(now time.Time, c ConnID) []Effect) func(time.Time, Event) []Effect {
	return func(now time.Time, ev Event) []Effect {
		switch e := ev.(type) {
		case Start:
			return []Effect{Dial{Peer: peer, Tag: "t"}}
		case ConnOpened:
			if then != nil {
				return then(now, e.Conn)
			}
		}
		return nil
	}
}

func wantLog(t *testing.T, log []string, want ...string) {
	t.Helper()
	if !slices.Equal(log, want) {
		t.Fatalf("log:\n%s\nwant:\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
}

func TestNetworkOpenSendCloseOrder(t *testing.T) {
	a := dialOnStart("b", func(now time.Time, c ConnID) []Effect {
		return []Effect{Send{Conn: c, Frame: []byte("x")}, Send{Conn: c, Frame: []byte("y")}, Close{c, "bye"}, Send{Conn: c, Frame: []byte("z")}}
	})
	log, _ := runScript(t, a, nil, nil)
	wantLog(t, log,
		"0.000000000 a start inc=1",
		"0.000000000 b start inc=1",
		"0.010000000 b opened c1 peer=a dialer=false",
		`0.020000000 a opened c1 peer=b dialer=true tag="t"`,
		"0.030000000 b recv c1 len=1 hex=78",
		"0.030000000 b recv c1 len=1 hex=79",
		`0.030000000 b closed c1 reason="bye"`)
}

func TestNetworkFrameTooBig(t *testing.T) {
	big := bytes.Repeat([]byte{1}, FrameBytesMax+1)
	a := dialOnStart("b", func(now time.Time, c ConnID) []Effect {
		return []Effect{Send{Conn: c, Frame: []byte("ok")}, Send{Conn: c, Frame: big}, Send{Conn: c, Frame: []byte("after")}}
	})
	log, r := runScript(t, a, nil, nil)
	reason := fmt.Sprintf("%s (%d bytes > %d)", ReasonTooBig, FrameBytesMax+1, FrameBytesMax)
	wantLog(t, log[4:],
		"0.030000000 b recv c1 len=2 hex=6f6b",
		fmt.Sprintf("0.030000000 b closed c1 reason=%q", reason),
		fmt.Sprintf("0.040000000 a closed c1 reason=%q", reason))
	if r.Stats.FramesTooBig != 1 || r.Stats.FramesLost != 1 {
		t.Fatalf("stats %+v", r.Stats)
	}
	exact := bytes.Repeat([]byte{1}, FrameBytesMax)
	a = dialOnStart("b", func(now time.Time, c ConnID) []Effect { return []Effect{Send{Conn: c, Frame: exact}} })
	log, _ = runScript(t, a, nil, nil)
	if !strings.Contains(log[len(log)-1], "b recv c1 len=4194304") {
		t.Fatalf("a frame of exactly FrameBytesMax must pass: %s", log[len(log)-1])
	}
}

func TestNetworkReplacementConnection(t *testing.T) {
	opened := 0
	a := func(now time.Time, ev Event) []Effect {
		switch e := ev.(type) {
		case Start:
			return []Effect{Dial{Peer: "b", Tag: "first"}}
		case ConnOpened:
			opened++
			if opened == 1 {
				return []Effect{Dial{Peer: "b", Tag: "second"}}
			}
			return []Effect{Send{Conn: e.Conn, Frame: []byte("new")}, Close{1, "replaced"}}
		}
		return nil
	}
	log, _ := runScript(t, a, nil, nil)
	wantLog(t, log[2:],
		"0.010000000 b opened c1 peer=a dialer=false",
		`0.020000000 a opened c1 peer=b dialer=true tag="first"`,
		"0.030000000 b opened c2 peer=a dialer=false",
		`0.040000000 a opened c2 peer=b dialer=true tag="second"`,
		"0.050000000 b recv c2 len=3 hex=6e6577",
		`0.050000000 b closed c1 reason="replaced"`)
}

func TestCrashRestartTimersAndCalls(t *testing.T) {
	a := func(now time.Time, ev Event) []Effect {
		switch e := ev.(type) {
		case Start:
			id := CallID(e.Incarnation)
			return []Effect{Dial{Peer: "b"}, SetTimer{"t", now.Add(time.Second)},
				SetTimer{"gone", now.Add(time.Second)}, CancelTimer{"gone"},
				Call{To: "svc", Call: id, Req: Text("prepare")}}
		}
		return nil
	}
	svc := func(now time.Time, ev Event) []Effect {
		if e, ok := ev.(CallReceived); ok {
			return []Effect{Reply{To: e.From, Call: e.Call, Res: Text("part")},
				Reply{To: e.From, Call: e.Call, Res: Text("done")}}
		}
		return nil
	}
	log, r := runScript(t, a, nil, func(w *Kernel) {
		w.AddNode("svc", func() Node { return NodeFunc(svc) })
		w.At(Epoch.Add(15*time.Millisecond), "crash a", func() { w.Crash("a") })
		w.At(Epoch.Add(500*time.Millisecond), "restart a", func() { w.Restart("a") })
	})
	wantLog(t, log,
		"0.000000000 a start inc=1",
		"0.000000000 b start inc=1",
		"0.000000000 a reply from=svc id=1 part",
		"0.000000000 a reply from=svc id=1 done",
		"0.010000000 b opened c1 peer=a dialer=false",
		`0.025000000 b closed c1 reason="connection lost"`,
		"0.500000000 a start inc=2",
		"0.500000000 a reply from=svc id=2 part",
		"0.500000000 a reply from=svc id=2 done",
		"0.510000000 b opened c2 peer=a dialer=false",
		"0.520000000 a opened c2 peer=b dialer=true",
		"1.500000000 a timer t")
	if r.Stats.Crashes != 1 {
		t.Fatalf("crashes %d", r.Stats.Crashes)
	}
}

func TestDialRefusedWhenPeerDownOrUnknown(t *testing.T) {
	a := func(now time.Time, ev Event) []Effect {
		if _, ok := ev.(Start); ok {
			return []Effect{Dial{Peer: "b", Tag: "1"}, Dial{Peer: "nobody", Tag: "2"}}
		}
		return nil
	}
	log, _ := runScript(t, a, nil, func(w *Kernel) {
		w.At(Epoch, "", func() { w.Crash("b") })
	})
	wantLog(t, log, // b crashed before its Start was delivered
		"0.000000000 a start inc=1",
		`0.020000000 a dial-failed peer=b tag="1" reason="connection refused"`,
		`0.020000000 a dial-failed peer=nobody tag="2" reason="no such host"`)
}

func TestQueueBoundPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "event queue full") {
			t.Fatalf("recovered %v", r)
		}
	}()
	Run(1, Options{Schedule: fixedNet(1), QueueMax: 8, Setup: func(w *Kernel) {
		w.AddNode("a", func() Node {
			return NodeFunc(func(now time.Time, ev Event) []Effect {
				var out []Effect
				for i := range 10 {
					out = append(out, SetTimer{TimerID(fmt.Sprint(i)), now.Add(time.Second)})
				}
				return out
			})
		})
	}})
}

func TestQueueOrder(t *testing.T) {
	q := newQueue(100)
	for i, at := range []int64{5, 1, 3, 1, 5, 0, 3} {
		q.push(item{at: at, gen: uint64(i)})
	}
	var got []string
	for q.len() > 0 {
		it := q.pop()
		got = append(got, fmt.Sprintf("%d/%d", it.at, it.gen))
	}
	want := []string{"0/5", "1/1", "1/3", "3/2", "3/6", "5/0", "5/4"}
	if !slices.Equal(got, want) {
		t.Fatalf("pop order %v, want %v", got, want)
	}
}

func TestStreamsIndependent(t *testing.T) {
	a1, b1 := StreamSeed(7, "network")
	a2, b2 := StreamSeed(7, "node:d1")
	a3, _ := StreamSeed(8, "network")
	if a1 == a2 && b1 == b2 || a1 == a3 {
		t.Fatal("streams collide")
	}
	r := NewStream(7, "network")
	x := r.Uint64()
	// a fresh stream with the same name replays; drawing elsewhere does not shift it
	other := NewStream(7, "workload")
	other.Uint64()
	if NewStream(7, "network").Uint64() != x {
		t.Fatal("stream not reproducible")
	}
	hits := 0
	q := Ratio{1, 4}
	for range 4000 {
		if q.Chance(r) {
			hits++
		}
	}
	if hits < 800 || hits > 1200 || (Ratio{}).Chance(r) || !(Ratio{3, 3}).Chance(r) {
		t.Fatalf("ratio 1/4 hit %d of 4000", hits)
	}
}

func TestFrameBytesMaxMatchesWire(t *testing.T) {
	if FrameBytesMax != wire.FrameBytesMax {
		t.Fatalf("FrameBytesMax = %d, wire says %d", FrameBytesMax, wire.FrameBytesMax)
	}
}

func TestReplyToCrashedCallerDropped(t *testing.T) {
	a := func(now time.Time, ev Event) []Effect {
		if e, ok := ev.(Start); ok {
			return []Effect{Call{To: "svc", Call: CallID(10 + e.Incarnation), Req: Text("slow")}}
		}
		return nil
	}
	var pending []CallReceived
	svc := func(now time.Time, ev Event) []Effect {
		switch e := ev.(type) {
		case CallReceived:
			pending = append(pending, e)
			return []Effect{SetTimer{TimerID(fmt.Sprint(e.Call)), now.Add(time.Second)}}
		case TimerFired:
			c := pending[0]
			pending = pending[1:]
			return []Effect{Reply{To: c.From, Call: c.Call, Res: Text("late")}}
		}
		return nil
	}
	log, r := runScript(t, a, nil, func(w *Kernel) {
		w.AddNode("svc", func() Node { return NodeFunc(svc) })
		w.At(Epoch.Add(100*time.Millisecond), "", func() { w.Crash("a") })
		w.At(Epoch.Add(200*time.Millisecond), "", func() { w.Restart("a") })
	})
	wantLog(t, log,
		"0.000000000 a start inc=1",
		"0.000000000 b start inc=1",
		"0.200000000 a start inc=2",
		"1.200000000 a reply from=svc id=12 late")
	if !strings.Contains(strings.Join(r.Trace, "\n"), "1.000000000 kernel !! drop reply svc->a") {
		t.Fatalf("old reply not dropped:\n%s", strings.Join(r.Trace, "\n"))
	}
}
