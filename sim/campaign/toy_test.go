package campaign

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/sim"
)

// A small world of two nodes for testing the campaign machinery without the
// full stack: a client sends numbered requests to a server, one every
// interval, and resends the unacknowledged ones after every reconnect. The
// server applies each request and acknowledges it. With the planted bug the
// server does not deduplicate, so a resend after a lost ack applies a
// request twice, which the "applied_once" check catches.

type toyRunner struct {
	bug bool
	// noise, when set, makes every run differ (a nondeterministic world for
	// the auditor).
	noise *int
}

func (t toyRunner) options() sim.Options {
	setup := func(w *sim.Kernel) { toySetup(w, t.bug) }
	if t.noise != nil {
		n := t.noise
		setup = func(w *sim.Kernel) {
			*n++
			w.Note("noise " + strconv.Itoa(*n))
			toySetup(w, t.bug)
		}
	}
	return sim.Options{Setup: setup, Workload: 12}
}

func (t toyRunner) Run(seed uint64) Outcome { return Outcome{Result: sim.Run(seed, t.options())} }

func (t toyRunner) Replay(s sim.Schedule) Outcome {
	return Outcome{Result: sim.Replay(s, t.options())}
}

func (t toyRunner) Trace(seed uint64, s *sim.Schedule) sim.Result {
	o := t.options()
	o.KeepTrace = true
	if s != nil {
		return sim.Replay(*s, o)
	}
	return sim.Run(seed, o)
}

func (t toyRunner) Shrink(o Outcome) sim.ShrinkResult { return sim.Shrink(o.Result, t.options()) }

type toyState struct {
	total   int
	acked   map[int]bool
	applied map[int]int
}

func toySetup(w *sim.Kernel, bug bool) {
	st := &toyState{total: w.Workload(), acked: map[int]bool{}, applied: map[int]int{}}
	w.AddNode("client", func() sim.Node { return &toyClient{w: w, st: st} })
	w.AddNode("server", func() sim.Node {
		return sim.NodeFunc(func(now time.Time, ev sim.Event) []sim.Effect {
			d, ok := ev.(sim.Delivered)
			if !ok {
				return nil
			}
			n := toyNumber(d.Frame)
			if bug || st.applied[n] == 0 {
				st.applied[n]++
			}
			return []sim.Effect{sim.Send{Conn: d.Conn, Frame: []byte("ack " + strconv.Itoa(n))}}
		})
	})
	w.AddCheck(sim.Check{Name: "applied_once", AfterStep: func(v *sim.View) error {
		for n := 1; n <= st.total; n++ {
			if st.applied[n] > 1 {
				return fmt.Errorf("request %d applied %d times", n, st.applied[n])
			}
		}
		return nil
	}})
	w.SetConvergence(func() (bool, string) {
		if len(st.acked) == st.total {
			return true, ""
		}
		return false, fmt.Sprintf("%d of %d requests unacknowledged", st.total-len(st.acked), st.total)
	})
}

type toyClient struct {
	w      *sim.Kernel
	st     *toyState
	issued int
	conn   sim.ConnID
	open   bool
}

func (c *toyClient) Step(now time.Time, ev sim.Event) []sim.Effect {
	switch e := ev.(type) {
	case sim.Start:
		return []sim.Effect{sim.Dial{Peer: "server"}, sim.SetTimer{Timer: "next", At: now}}
	case sim.ConnOpened:
		c.open, c.conn = true, e.Conn
		var out []sim.Effect
		for n := 1; n <= c.issued; n++ {
			if !c.st.acked[n] {
				c.w.Sometimes("toy_resend")
				out = append(out, c.send(n))
			}
		}
		return out
	case sim.ConnClosed, sim.DialFailed:
		c.open = false
		return []sim.Effect{sim.SetTimer{Timer: "redial", At: now.Add(300 * time.Millisecond)}}
	case sim.Delivered:
		c.st.acked[toyNumber(e.Frame)] = true
	case sim.TimerFired:
		if e.Timer == "redial" {
			return []sim.Effect{sim.Dial{Peer: "server"}}
		}
		if c.issued == c.st.total {
			return nil
		}
		c.issued++
		out := []sim.Effect{sim.SetTimer{Timer: "next", At: now.Add(time.Second)}}
		if c.open {
			out = append(out, c.send(c.issued))
		}
		return out
	}
	return nil
}

func (c *toyClient) send(n int) sim.Effect {
	return sim.Send{Conn: c.conn, Frame: []byte("req " + strconv.Itoa(n))}
}

func toyNumber(frame []byte) int {
	_, num, _ := strings.Cut(string(frame), " ")
	n, err := strconv.Atoi(num)
	if err != nil {
		panic("toy: bad frame " + string(frame))
	}
	return n
}
