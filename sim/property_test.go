package sim

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// streamNode opens connections to its peer and sends numbered frames on
// each; on the receiving side it checks that every connection delivers a
// gap-free, duplicate-free prefix of what was sent: faults may cut a stream
// short but never reorder, duplicate or skip.
type streamNode struct {
	peer    NodeID
	rng     interface{ IntN(int) int }
	next    map[ConnID]int // frames sent per connection
	got     map[ConnID]int // frames received per connection
	bad     *string
	dialing bool
}

func (s *streamNode) Step(now time.Time, ev Event) []Effect {
	switch e := ev.(type) {
	case Start:
		return []Effect{SetTimer{"tick", now.Add(time.Millisecond)}}
	case ConnOpened:
		s.dialing = false
		s.next[e.Conn] = 0
	case DialFailed:
		s.dialing = false
	case ConnClosed:
		delete(s.next, e.Conn)
	case Delivered:
		n, _ := strconv.Atoi(string(e.Frame))
		if n != s.got[e.Conn]+1 && *s.bad == "" {
			*s.bad = fmt.Sprintf("c%d delivered %d after %d", e.Conn, n, s.got[e.Conn])
		}
		s.got[e.Conn] = n
	case TimerFired:
		return s.tick(now)
	}
	return nil
}

func (s *streamNode) tick(now time.Time) []Effect {
	out := []Effect{SetTimer{"tick", now.Add(time.Duration(1+s.rng.IntN(50)) * time.Millisecond)}}
	if len(s.next) < 2 && !s.dialing && s.peer != "" {
		s.dialing = true
		out = append(out, Dial{Peer: s.peer})
	}
	for _, c := range sortedConns(s.next) {
		if s.rng.IntN(3) == 0 {
			s.next[c]++
			out = append(out, Send{Conn: c, Frame: []byte(strconv.Itoa(s.next[c]))})
		}
		if s.rng.IntN(200) == 0 {
			out = append(out, Close{c, "done"})
			delete(s.next, c)
		}
	}
	return out
}

func sortedConns(m map[ConnID]int) []ConnID {
	var out []ConnID
	for c := range m {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

func TestNetworkStreamsArePrefixes(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		seed := rapid.Uint64().Draw(rt, "seed")
		bad := ""
		opts := Options{LivenessTimeout: 5 * time.Second, Swarm: SwarmConfig{All: true,
			HealMin: time.Second, HealMax: 5 * time.Second}}
		opts.Setup = func(w *Kernel) {
			for _, id := range []NodeID{"a", "b"} {
				peer := NodeID("")
				if id == "a" {
					peer = "b"
				}
				w.AddNode(id, func() Node {
					return &streamNode{peer: peer, rng: w.Rand("node:" + string(id)),
						next: map[ConnID]int{}, got: map[ConnID]int{}, bad: &bad}
				})
			}
			w.AddCheck(Check{Name: "prefix", AfterStep: func(*View) error {
				if bad != "" {
					return fmt.Errorf("%s", bad)
				}
				return nil
			}})
		}
		r := Run(seed, opts)
		if r.Failed() {
			rt.Fatalf("%s", r.Report())
		}
		if r.Stats.FramesDelivered == 0 {
			rt.Fatalf("no traffic: %+v", r.Stats)
		}
	})
}
