package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The toy protocol: a client delivers Workload numbered requests to a server
// over a connection that may break, stall or slow down. The client retries
// unacknowledged requests on a timer and after every reconnect; the server
// applies each request once (deduplicating by sequence number) and acks it.

const (
	toyClient NodeID = "client"
	toyServer NodeID = "server"
)

type toyConfig struct {
	noDedup  bool          // planted bug: the server applies retries again
	retry    time.Duration // retransmit interval
	interval time.Duration // gap between new requests
}

// toyClientNode is the sender.
type toyClientNode struct {
	w       *Kernel
	cfg     toyConfig
	rng     *rand.Rand
	total   int
	issued  int
	acked   map[int]bool
	conn    ConnID
	open    bool
	dialing bool
}

func (c *toyClientNode) Step(now time.Time, ev Event) []Effect {
	switch e := ev.(type) {
	case Start:
		return append(c.dial(), SetTimer{Timer: "next", At: now})
	case ConnOpened:
		c.open, c.conn, c.dialing = true, e.Conn, false
		if c.issued > 0 {
			c.w.Sometimes("toy_reconnect_resend")
		}
		return c.resend()
	case ConnClosed:
		c.open = false
		return c.redial(now)
	case DialFailed:
		c.dialing = false
		c.w.Sometimes("toy_dial_failed")
		return c.redial(now)
	case Delivered:
		n := toySeq(e.Frame, "ack ")
		c.acked[n] = true
		return nil
	case TimerFired:
		return c.timer(now, e.Timer)
	}
	return nil
}

func (c *toyClientNode) timer(now time.Time, id TimerID) []Effect {
	switch id {
	case "next":
		if c.issued >= c.total {
			return nil
		}
		c.issued++
		out := []Effect{SetTimer{Timer: "next", At: now.Add(c.cfg.interval)},
			SetTimer{Timer: "retry", At: now.Add(c.cfg.retry)}}
		if c.open {
			out = append(out, Send{Conn: c.conn, Frame: toyFrame("req ", c.issued)})
		}
		return out
	case "retry":
		if c.pending() == 0 {
			return nil
		}
		c.w.Sometimes("toy_retransmit")
		return append(c.resend(), SetTimer{Timer: "retry", At: now.Add(c.cfg.retry)})
	case "redial":
		return c.dial()
	}
	return nil
}

func (c *toyClientNode) dial() []Effect {
	if c.dialing || c.open {
		return nil
	}
	c.dialing = true
	return []Effect{Dial{Peer: toyServer}}
}

func (c *toyClientNode) redial(now time.Time) []Effect {
	backoff := time.Duration(100+c.rng.IntN(900)) * time.Millisecond
	return []Effect{SetTimer{Timer: "redial", At: now.Add(backoff)}}
}

func (c *toyClientNode) resend() []Effect {
	if !c.open {
		return nil
	}
	var out []Effect
	for n := 1; n <= c.issued; n++ {
		if !c.acked[n] {
			out = append(out, Send{Conn: c.conn, Frame: toyFrame("req ", n)})
		}
	}
	return out
}

func (c *toyClientNode) pending() int { return c.issued - len(c.acked) }

// toyServerNode is the receiver. applied survives in the test (it is the
// ground truth checkers read).
type toyServerNode struct {
	w       *Kernel
	cfg     toyConfig
	applied map[int]int
}

func (s *toyServerNode) Step(now time.Time, ev Event) []Effect {
	e, ok := ev.(Delivered)
	if !ok {
		return nil
	}
	n := toySeq(e.Frame, "req ")
	if s.applied[n] > 0 && !s.cfg.noDedup {
		s.w.Sometimes("toy_duplicate_suppressed")
	} else {
		s.applied[n]++
	}
	return []Effect{Send{Conn: e.Conn, Frame: toyFrame("ack ", n)}}
}

func toyFrame(prefix string, n int) []byte { return []byte(prefix + strconv.Itoa(n)) }

func toySeq(frame []byte, prefix string) int {
	s, ok := strings.CutPrefix(string(frame), prefix)
	assert.That(ok, "toy: bad frame %q", frame)
	n, err := strconv.Atoi(s)
	assert.That(err == nil, "toy: bad number in %q", frame)
	return n
}

// toySetup returns a Setup building the toy world.
func toySetup(cfg toyConfig) func(w *Kernel) {
	if cfg.retry == 0 {
		cfg.retry = 500 * time.Millisecond
	}
	if cfg.interval == 0 {
		cfg.interval = 200 * time.Millisecond
	}
	return func(w *Kernel) {
		var client *toyClientNode
		server := &toyServerNode{w: w, cfg: cfg, applied: map[int]int{}}
		w.AddNode(toyClient, func() Node {
			client = &toyClientNode{w: w, cfg: cfg, rng: w.Rand("node:client"),
				total: w.Workload(), acked: map[int]bool{}}
			return client
		})
		w.AddNode(toyServer, func() Node { return server })
		w.AddCheck(Check{Name: "applied_once", AfterStep: func(v *View) error {
			if _, ev, _ := v.Last(); ev == nil {
				return nil
			}
			for n := 1; n <= w.Workload(); n++ {
				if server.applied[n] > 1 {
					return fmt.Errorf("request %d applied %d times", n, server.applied[n])
				}
			}
			return nil
		}})
		w.AddCheck(Check{Name: "acked_implies_applied", AtEnd: func(v *View) error {
			for n := 1; n <= client.issued; n++ {
				if client.acked[n] && server.applied[n] == 0 {
					return fmt.Errorf("request %d acked but never applied", n)
				}
			}
			return nil
		}})
		w.SetConvergence(func() (bool, string) {
			if client.issued == client.total && client.pending() == 0 {
				return true, ""
			}
			var missing []int
			for n := 1; n <= client.total; n++ {
				if !client.acked[n] {
					missing = append(missing, n)
				}
			}
			slices.Sort(missing)
			return false, fmt.Sprintf("client: %d of %d requests unacked (first %d)",
				len(missing), client.total, missing[0])
		})
	}
}

func toyOptions(cfg toyConfig) Options {
	return Options{Setup: toySetup(cfg), Workload: 20,
		Swarm: SwarmConfig{HealMin: 5 * time.Second, HealMax: 15 * time.Second}}
}
