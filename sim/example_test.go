package sim_test

import (
	"fmt"
	"time"

	"github.com/turnstile-sim/turnstile/sim"
)

// echo answers every frame with the same frame.
func echo(now time.Time, ev sim.Event) []sim.Effect {
	if d, ok := ev.(sim.Delivered); ok {
		return []sim.Effect{sim.Send{Conn: d.Conn, Frame: d.Frame}}
	}
	return nil
}

// Example builds a two-node world: a client dials a server, sends one frame
// and waits for the echo, redialling when the network takes the connection
// away. The run succeeds once the echo arrived after faults healed.
func Example() {
	opts := sim.Options{Setup: func(w *sim.Kernel) {
		echoed := false // per-run state lives inside Setup
		w.AddNode("server", func() sim.Node { return sim.NodeFunc(echo) })
		w.AddNode("client", func() sim.Node {
			return sim.NodeFunc(func(now time.Time, ev sim.Event) []sim.Effect {
				switch e := ev.(type) {
				case sim.Start, sim.TimerFired:
					return []sim.Effect{sim.Dial{Peer: "server"}}
				case sim.ConnOpened:
					return []sim.Effect{sim.Send{Conn: e.Conn, Frame: []byte("ping")}}
				case sim.ConnClosed, sim.DialFailed:
					return []sim.Effect{sim.SetTimer{Timer: "redial", At: now.Add(time.Second)}}
				case sim.Delivered:
					echoed = true
				}
				return nil
			})
		})
		w.SetConvergence(func() (bool, string) { return echoed, "no echo yet" })
	}}
	r := sim.Run(42, opts)
	again := sim.Replay(r.Schedule, opts)
	fmt.Println(r.Converged, r.Failed(), again.Fingerprint == r.Fingerprint)
	// Output: true false true
}
