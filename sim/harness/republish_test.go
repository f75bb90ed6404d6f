package harness

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

// republishRig drives one daemon process by hand: it dials, and the test
// feeds it connections, frames and the republish command.
type republishRig struct {
	t   *testing.T
	n   *Daemon
	now time.Time
}

func newRepublishRig(t *testing.T, w *sim.Kernel) *republishRig {
	dev := NewDevice(w, "dev", "core", daemon.Config{Kinds: []daemon.KindConfig{{Kind: "synthetic", Version: "1.0.0",
		Available: true, Capabilities: wire.AllCapabilities(wire.CapabilityFromBool(true))}}}, Config{})
	r := &republishRig{t: t, n: dev.Factory().(*Daemon), now: w.Now()}
	r.step(sim.Start{})
	return r
}

func (r *republishRig) step(ev sim.Event) []sim.Effect {
	r.now = r.now.Add(time.Millisecond)
	return r.n.Step(r.now, ev)
}

func (r *republishRig) open(conn sim.ConnID) {
	r.step(sim.ConnOpened{Conn: conn, Peer: "core", Dialer: true})
}

// prepare delivers an execution_prepare on conn and returns the statuses
// the daemon sent for it.
func (r *republishRig) prepare(conn sim.ConnID, req, session string) []wire.PreparationStatus {
	b, err := wire.Encode(wire.Frame{ID: req, Payload: wire.ExecutionPrepare{SessionID: session,
		Configuration: wire.ExecutionConfiguration{AgentKind: "synthetic", AgentStateKey: "agents-api-" + session,
			StrictResume: true, DisableExecutionEnvironment: true}}})
	if err != nil {
		r.t.Fatal(err)
	}
	sts := r.statuses(r.step(sim.Delivered{Conn: conn, Frame: b}))
	if len(sts) != 1 || sts[0].conn != conn || sts[0].st.State != wire.StatePreparing {
		r.t.Fatalf("prepare %s on conn %d: statuses %+v, want one preparing", req, conn, sts)
	}
	return []wire.PreparationStatus{sts[0].st}
}

type sentStatus struct {
	conn sim.ConnID
	req  string
	st   wire.PreparationStatus
}

func (r *republishRig) statuses(effs []sim.Effect) []sentStatus {
	var out []sentStatus
	for _, e := range effs {
		s, ok := e.(sim.Send)
		if !ok {
			continue
		}
		f, err := wire.Decode(s.Frame)
		if err != nil {
			r.t.Fatalf("daemon sent an undecodable frame: %v", err)
		}
		if st, ok := f.Payload.(wire.PreparationStatus); ok {
			out = append(out, sentStatus{conn: s.Conn, req: f.ID, st: st})
		}
	}
	return out
}

func (r *republishRig) republish() []sentStatus {
	return r.statuses(r.step(sim.TimerFired{Timer: CmdRepublish}))
}

// TestRepublishNeverReplaysALostConnectionsAdmission: an admission is
// connection-local; when its connection goes the machine retires it
// without a status, so the republish command must not resend its last
// status on the successor connection (an oracle following the wire would
// take it for a live reservation of the executor). It republishes the
// newest admission of the current connection instead.
func TestRepublishNeverReplaysALostConnectionsAdmission(t *testing.T) {
	sim.Run(1, sim.Options{
		Swarm: sim.SwarmConfig{Kinds: []sim.FaultKind{}, HealMin: time.Hour, HealMax: time.Hour},
		Setup: func(w *sim.Kernel) {
			r := newRepublishRig(t, w)
			r.open(1)
			r.prepare(1, "p-1", "s-1")
			if got := r.republish(); len(got) != 1 || got[0].conn != 1 || got[0].req != "p-1" {
				t.Fatalf("republish on the admission's own connection: %+v, want p-1's status on conn 1", got)
			}
			r.step(sim.ConnClosed{Conn: 1, Reason: "lost"})
			r.open(2)
			if got := r.republish(); len(got) != 0 {
				t.Fatalf("republish after the connection was lost: %+v, want nothing (p-1 retired with conn 1)", got)
			}
			r.prepare(2, "p-2", "s-2")
			if got := r.republish(); len(got) != 1 || got[0].conn != 2 || got[0].req != "p-2" {
				t.Fatalf("republish on the successor: %+v, want p-2's status on conn 2", got)
			}
		},
	})
}
