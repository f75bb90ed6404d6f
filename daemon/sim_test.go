package daemon_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

// The sim-driven suite: the daemon machine (in a harness.Device process,
// with the simulated Harness inside it) and a scripted Core peer run inside
// the simulator kernel, with frames encoded and decoded by wire, and both
// network faults and Harness faults scheduled by the kernel's swarm.

const (
	nodeCore   sim.NodeID = "core"
	nodeDaemon sim.NodeID = "daemon"
)

type jobState uint8

const (
	jobIdle jobState = iota
	jobPreparing
	jobReleasing
	jobStarting
	jobRunning
	jobDone     // done received
	jobLost     // connection lost after start: outcome unknown, never replayed
	jobReleased // released before start
	jobGaveUp   // refused for good
)

func (s jobState) terminal() bool { return s >= jobDone }

// job is one Turn the Core peer wants run.
type job struct {
	n            int
	session      string
	release      bool
	cancelAfter  time.Duration
	inputs       int
	startDelay   time.Duration // hold the ready admission (may outlive its expiry)
	ready        wire.PreparationStatus
	state        jobState
	conn         sim.ConnID
	req, run     string
	attempts     int
	retriedStart bool
	sentInputs   int
	inputPending bool
	why          string // code that made the job give up
}

// corePeer is a scripted Core: it prepares, starts, steers, cancels and
// releases over whatever connection the daemon has open, and never replays
// anything on a new connection.
type corePeer struct {
	w            *sim.Kernel
	rng          *rand.Rand
	jobs         []*job
	conn         sim.ConnID
	open         bool
	seq          int
	shutdownSent map[sim.ConnID]bool
	byReq        map[string]*job
	byRun        map[string]*job
}

func newCorePeer(w *sim.Kernel) *corePeer {
	c := &corePeer{w: w, rng: w.Rand("workload"), shutdownSent: map[sim.ConnID]bool{},
		byReq: map[string]*job{}, byRun: map[string]*job{}}
	for i := 1; i <= w.Workload(); i++ {
		j := &job{n: i, session: fmt.Sprintf("s%d", 1+c.rng.IntN(6)), inputs: c.rng.IntN(4)}
		j.release = c.rng.IntN(7) == 0
		if c.rng.IntN(4) == 0 {
			j.startDelay = time.Duration(c.rng.IntN(6000)) * time.Millisecond
		}
		if c.rng.IntN(3) == 0 {
			j.cancelAfter = time.Duration(10+c.rng.IntN(2000)) * time.Millisecond
		}
		c.jobs = append(c.jobs, j)
	}
	return c
}

func (c *corePeer) finished() bool {
	for _, j := range c.jobs {
		if !j.state.terminal() {
			return false
		}
	}
	return true
}

func (c *corePeer) Step(now time.Time, ev sim.Event) []sim.Effect {
	switch e := ev.(type) {
	case sim.Start:
		return []sim.Effect{sim.SetTimer{Timer: "tick", At: now.Add(100 * time.Millisecond)}}
	case sim.ConnOpened:
		var out []sim.Effect
		if c.open {
			out = append(out, sim.Close{Conn: c.conn, Reason: "replaced"})
		}
		c.lose()
		c.conn, c.open = e.Conn, true
		return append(out, c.kick(now)...)
	case sim.ConnClosed:
		if e.Conn == c.conn && c.open {
			c.open = false
			c.lose()
		}
	case sim.Delivered:
		if c.open && e.Conn == c.conn {
			return c.frame(now, e.Frame)
		}
	case sim.TimerFired:
		return c.timer(now, e.Timer)
	}
	return nil
}

// lose forgets the connection's work: unstarted preparations are retried
// fresh, started work is unknown and never replayed.
func (c *corePeer) lose() {
	for _, j := range c.jobs {
		switch j.state {
		case jobPreparing, jobReleasing:
			j.state = jobIdle
		case jobStarting, jobRunning:
			j.state = jobLost
		}
	}
}

func (c *corePeer) send(id string, p wire.Payload) sim.Effect {
	b, err := wire.Encode(wire.Frame{ID: id, Payload: p})
	if err != nil {
		panic(fmt.Sprintf("core peer encode %s: %v", p.MessageType(), err))
	}
	return sim.Send{Conn: c.conn, Frame: b}
}

func (c *corePeer) timer(now time.Time, id sim.TimerID) []sim.Effect {
	if id == "tick" {
		return append(c.kick(now), sim.SetTimer{Timer: "tick", At: now.Add(250 * time.Millisecond)})
	}
	kind, rest, _ := strings.Cut(string(id), "/")
	if kind == "start" {
		if j := c.byReq[rest]; j != nil && c.open && j.conn == c.conn && j.state == jobPreparing && j.req == rest {
			return c.start(j)
		}
		return nil
	}
	j := c.byRun[rest]
	if j == nil || !c.open || j.conn != c.conn || j.state != jobRunning {
		return nil
	}
	switch kind {
	case "cancel":
		return []sim.Effect{c.send(j.run, wire.PromptCancel{DeliveryID: "cancel-" + j.run})}
	case "steer":
		j.sentInputs--
		j.inputPending = false
		return c.nextInput(j)
	}
	return nil
}

func (c *corePeer) kick(now time.Time) []sim.Effect {
	if !c.open {
		return nil
	}
	var out []sim.Effect
	busy := 0
	for _, j := range c.jobs {
		if j.state > jobIdle && !j.state.terminal() {
			busy++
		}
	}
	// Like Core's per-Session queue, one Turn of a Session is claimed at a
	// time: a Session's next Turn waits until the previous one ended.
	claimed := map[string]bool{}
	for _, j := range c.jobs {
		if j.state > jobIdle && !j.state.terminal() {
			claimed[j.session] = true
		}
	}
	for _, j := range c.jobs {
		if busy >= 3 {
			break
		}
		if j.state == jobIdle && !claimed[j.session] {
			claimed[j.session] = true
			out = append(out, c.prepare(j)...)
			busy++
		}
	}
	if c.finished() && c.w.Healed() && !c.shutdownSent[c.conn] {
		c.shutdownSent[c.conn] = true
		out = append(out, c.send("", wire.DeviceShutdown{Reason: "done"}))
	}
	return out
}

func prepareFor(session string) wire.ExecutionPrepare {
	return wire.ExecutionPrepare{SessionID: session, Configuration: wire.ExecutionConfiguration{
		AgentKind: "contract", AgentStateKey: "agents-api-" + session, StrictResume: true, DisableExecutionEnvironment: true,
	}}
}

func (c *corePeer) prepare(j *job) []sim.Effect {
	c.seq++
	j.attempts++
	if j.attempts > 400 {
		j.state = jobGaveUp
		return nil
	}
	j.req = fmt.Sprintf("prep-%d-%d", j.n, c.seq)
	j.conn = c.conn
	j.state = jobPreparing
	c.byReq[j.req] = j
	out := []sim.Effect{c.send(j.req, prepareFor(j.session))}
	if c.rng.IntN(8) == 0 {
		out = append(out, out[0]) // a duplicate: the current status is republished
	}
	return out
}

func (c *corePeer) frame(now time.Time, b []byte) []sim.Effect {
	f, err := wire.Decode(b)
	if err != nil {
		panic(fmt.Sprintf("core peer: undecodable frame from the daemon: %v", err))
	}
	switch p := f.Payload.(type) {
	case wire.PreparationStatus:
		if j := c.byReq[f.ID]; j != nil && j.req == f.ID && j.conn == c.conn {
			return c.status(now, j, p)
		}
	case wire.Done:
		if j := c.byRun[f.ID]; j != nil && j.state == jobRunning {
			j.state = jobDone
		}
	case wire.PromptSteerAck:
		if j := c.byRun[f.ID]; j != nil && j.state == jobRunning && j.inputPending && p.InputID == inputID(j.sentInputs) {
			if p.ErrorCode == daemon.CodeNotReady || p.ErrorCode == daemon.CodeBusy {
				return []sim.Effect{sim.SetTimer{Timer: sim.TimerID("steer/" + j.run), At: now.Add(300 * time.Millisecond)}}
			}
			j.inputPending = false
			return c.nextInput(j)
		}
	}
	return nil
}

func inputID(n int) string { return fmt.Sprintf("in-%d", n) }

func (c *corePeer) nextInput(j *job) []sim.Effect {
	if j.inputPending || j.sentInputs >= j.inputs {
		return nil
	}
	j.sentInputs++
	j.inputPending = true
	id := inputID(j.sentInputs)
	return []sim.Effect{c.send(j.run, wire.PromptSteer{InputID: id, Input: wire.TextInput("more " + id), DurableReceipt: true})}
}

func (c *corePeer) status(now time.Time, j *job, p wire.PreparationStatus) []sim.Effect {
	switch p.State {
	case wire.StateRejected:
		return c.rejected(j, p)
	case wire.StateReady:
		if j.state != jobPreparing {
			return nil
		}
		if j.release {
			j.state = jobReleasing
			return []sim.Effect{c.send(j.req, wire.ExecutionRelease{Handle: p.Handle})}
		}
		j.ready = p
		if d := j.startDelay; d > 0 {
			j.startDelay = 0 // only the first admission is held
			return []sim.Effect{sim.SetTimer{Timer: sim.TimerID("start/" + j.req), At: now.Add(d)}}
		}
		return c.start(j)
	case wire.StateStarted:
		if j.state != jobStarting {
			return nil
		}
		j.state = jobRunning
		out := c.nextInput(j)
		if j.cancelAfter > 0 {
			out = append(out, sim.SetTimer{Timer: sim.TimerID("cancel/" + j.run), At: now.Add(j.cancelAfter)})
		}
		return out
	case wire.StateFailed, wire.StateExpired:
		if j.state == jobPreparing || j.state == jobReleasing || p.State == wire.StateExpired && j.state == jobStarting {
			j.state = jobIdle // nothing was transferred: a fresh preparation is allowed
		}
	case wire.StateReleased:
		if j.state == jobReleasing {
			j.state = jobReleased
		}
	}
	return nil
}

func (c *corePeer) start(j *job) []sim.Effect {
	j.state = jobStarting
	j.run = fmt.Sprintf("run-%d-%d", j.n, j.attempts)
	c.byRun[j.run] = j
	p := j.ready
	var out []sim.Effect
	if c.rng.IntN(16) == 0 {
		// An undecodable start first: answered invalid_start, changes nothing.
		bad := `{"type":"execution_start","id":"` + j.req + `","payload":{"handle":5}}`
		out = append(out, sim.Send{Conn: c.conn, Frame: []byte(bad)})
	}
	start := c.send(j.req, wire.ExecutionStart{ExecutorID: p.ExecutorID, Handle: p.Handle, RunID: j.run, Input: wire.TextInput("hello")})
	out = append(out, start)
	if c.rng.IntN(8) == 0 {
		out = append(out, start) // a duplicate start transfers nothing more
	}
	return out
}

func (c *corePeer) rejected(j *job, p wire.PreparationStatus) []sim.Effect {
	switch p.Operation {
	case wire.TypeExecutionPrepare:
		if j.state != jobPreparing {
			return nil
		}
		if p.ErrorCode == daemon.CodePreparationCapacity {
			j.state = jobIdle // the Turn stays unclaimed: retried with a fresh request on a later tick
			return nil
		}
		j.state = jobGaveUp // any other refusal never authorises a replay
		j.why = p.ErrorCode
	case wire.TypeExecutionStart:
		if j.state != jobStarting || p.ErrorCode == daemon.CodeInvalidStart {
			return nil
		}
		if p.ErrorCode == daemon.CodeExecutorUnavailable && !j.retriedStart {
			j.retriedStart = true // the one allowed retry, with a fresh preparation
			j.state = jobIdle
			return nil
		}
		j.state = jobGaveUp
		j.why = p.ErrorCode
	}
	return nil
}
