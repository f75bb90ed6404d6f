package world

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store"
	"github.com/turnstile-sim/turnstile/sim"
)

// The core_zombie fault: a new Core takes over from the durable store
// while the old one keeps running for the fault's window (For) with the
// connections it had, as an active Core cut off from the lease does until
// its renewal fails. The store holds a lease epoch: the takeover moves it
// up by one, and the new Core, restarted from the durable records
// (core.Restart), accepts the connections opened from then on and the API
// calls. The old Core, the zombie, still receives frames on its
// connections, steps its machine, fires its timers and sends.
//
// The simulated shell mirrors the production one (core/server with
// pgstore, cmd/turnstile): every commit carries the committing Core's
// epoch and the store refuses a stale one (pgstore.ErrFenced); a step is
// a batch, committed before any of its effects is applied; a refused
// commit stops the process without applying them (Options.Fatal exits),
// so its connections break; a step that wrote nothing commits nothing and
// its effects leave. The zombie's machine writes to its own view of the
// records (the production store's cache): what it writes is never
// durable unless the store accepts the commit. When the window ends the
// zombie stops the same way. A core_crash kills both. The answers to API
// calls it stepped before the takeover still leave (their commit came
// first); API clients and subscribers follow the endpoints to the new
// Core, so the zombie serves no subscription.
//
// The oracles (sim/check/failover.go) judge the store's ground truth
// (each durable write's epoch, each refused commit) and the frames on the
// zombie's connections; run_started_twice keeps judging Runs across both
// Cores.
var kCoreZombie = kind{kind: "core_zombie", min: time.Second, max: 8 * time.Second}

// Timers of the Core node the failover uses: the takeover (injected by
// the fault) and the end of a zombie's window (failoverEnd + generation).
const (
	failoverTakeover sim.TimerID = "failover/takeover"
	failoverEnd                  = "failover/end/"
)

// failover is the world's failover state, nil until a core_zombie fault
// came (so seeds without one pay nothing).
type failover struct {
	gen     int           // takeovers so far
	pending bool          // a takeover is queued
	window  time.Duration // the queued takeover's zombie window
	zombie  *zombie       // the running zombie, if any
}

// zombie is the old Core after a takeover.
type zombie struct {
	u     *universe
	gen   int
	node  *coreNode
	store *observedStore // its own view of the records (fence set)
	epoch uint64
	conns map[sim.ConnID]bool // Core's ends it kept, still open
	// before is its view's write count at the start of the batch; ops
	// are the batch's writes, what the last of them.
	before uint64
	ops    []func(*observedStore)
	what   string
	dead   bool
	closes []sim.Effect // what stopping does: its connections break
}

// startZombie queues a takeover on the Core node.
func (u *universe) startZombie(f sim.Fault) {
	if u.failover == nil {
		u.failover = &failover{}
	}
	fo := u.failover
	switch {
	case !u.w.Up(coreID) || u.core == nil:
		u.noVictim(f, "ignored: down")
		return
	case u.core.broken:
		u.noVictim(f, "ignored: Core's machine panicked")
		return
	case fo.pending || fo.zombie != nil:
		u.noVictim(f, "ignored: a zombie still runs")
		return
	}
	fo.pending, fo.window = true, f.For
	u.w.Inject(coreID, sim.TimerFired{Timer: failoverTakeover})
}

// failoverCrashed forgets the takeover and the zombie when the Core
// process crashes: the crash kills both Cores.
func (u *universe) failoverCrashed() {
	fo := u.failover
	if fo == nil {
		return
	}
	fo.pending = false
	if z := fo.zombie; z != nil {
		z.dead = true
		fo.zombie = nil
		u.led.ZombieGone(u.lt(u.w.Now()), z.epoch)
	}
}

// failoverStep routes an event of the Core node once a core_zombie fault
// came: the takeover, the end of the zombie's window, the zombie's
// connections and timers to the zombie, everything else to the current
// Core, whose timers carry its generation's prefix.
func (n *coreNode) failoverStep(now time.Time, ev sim.Event) []sim.Effect {
	fo := n.u.failover
	z := fo.zombie
	switch e := ev.(type) {
	case sim.TimerFired:
		id := string(e.Timer)
		if e.Timer == failoverTakeover {
			return n.takeover(now)
		}
		if gen, ok := strings.CutPrefix(id, failoverEnd); ok {
			if z != nil && gen == strconv.Itoa(z.gen) {
				return z.stop(now, "its window ended (lease lost)")
			}
			return nil
		}
		if rest, ok := strings.CutPrefix(id, n.prefix); ok {
			return prefixTimers(n.prefix, n.stepCore(now, sim.TimerFired{Timer: sim.TimerID(rest)}))
		}
		if z != nil {
			if rest, ok := strings.CutPrefix(id, z.node.prefix); ok {
				if strings.HasPrefix(rest, subPrefix) {
					return nil // its API subscribers went with the takeover
				}
				return z.step(now, sim.TimerFired{Timer: sim.TimerID(rest)})
			}
		}
		return nil // a timer of a Core that stopped
	case sim.Delivered:
		if z != nil && z.conns[e.Conn] {
			return z.step(now, ev)
		}
	case sim.ConnClosed:
		if z != nil && z.conns[e.Conn] {
			delete(z.conns, e.Conn)
			return z.step(now, ev)
		}
	}
	return prefixTimers(n.prefix, n.stepCore(now, ev))
}

// takeover turns the current Core into a zombie and starts a new Core
// from the durable records at the next epoch, in the same node.
func (n *coreNode) takeover(now time.Time) []sim.Effect {
	u := n.u
	fo := u.failover
	if !fo.pending {
		return nil
	}
	fo.pending = false
	if n.broken {
		u.w.Note("failover skipped: Core's machine panicked")
		return nil
	}
	fo.gen++
	old := new(coreNode)
	*old = *n
	// API clients follow the endpoints to the new Core: the ledger ends
	// every subscription at the restart, and the zombie serves none.
	old.subs = nil
	durable := u.store
	if durable.epoch == 0 {
		durable.epoch = 1 // the first Core's lease
	}
	z := &zombie{u: u, gen: fo.gen, node: old, store: durable, epoch: durable.epoch, conns: map[sim.ConnID]bool{}}
	var conns []uint64
	for c := range old.conns { //tidy:sorted sorted below
		z.conns[sim.ConnID(c)] = true
		conns = append(conns, uint64(c))
	}
	for c := range old.rogue { //tidy:sorted sorted below
		if !z.conns[c] {
			z.conns[c] = true
			conns = append(conns, uint64(c))
		}
	}
	slices.Sort(conns)
	for _, c := range conns {
		z.closes = append(z.closes, sim.Close{Conn: sim.ConnID(c), Reason: sim.ReasonLost})
	}
	// The zombie keeps its view (a copy); the durable records stay with
	// the store, whose lease moves to the next epoch.
	u.store = &observedStore{Memory: durable.Memory, u: u, epoch: durable.epoch + 1}
	durable.Memory = cloneMemory(durable.Memory)
	durable.fence = z
	z.before = durable.Memory.Writes()
	old.zombie = z
	fo.zombie = z
	at := u.lt(now)
	u.w.Note("failover: Core of epoch " + strconv.FormatUint(u.store.epoch, 10) + " takes over; the Core of epoch " +
		strconv.FormatUint(z.epoch, 10) + " runs on for " + fo.window.String() + " with " + strconv.Itoa(len(conns)) + " connections")
	u.led.Takeover(at, u.store.epoch, conns)
	u.led.NodeCrashed(at, string(coreID))
	u.count("NodeCrashed")
	fresh := u.newCore().(*coreNode)
	*n = *fresh
	u.core = n
	n.prefix = "g" + strconv.Itoa(fo.gen) + "/"
	return []sim.Effect{sim.SetTimer{Timer: sim.TimerID(failoverEnd + strconv.Itoa(fo.gen)), At: now.Add(fo.window)}}
}

// step runs the zombie on ev. Each machine step is a batch (coreNode.step
// calls committed); once a commit is refused the zombie stops and the
// step's effects are replaced by its connections breaking.
func (z *zombie) step(now time.Time, ev sim.Event) []sim.Effect {
	if z.dead {
		return nil
	}
	z.before = z.store.Memory.Writes()
	out := z.node.stepCore(now, ev)
	if z.dead {
		return z.closes
	}
	return prefixTimers(z.node.prefix, out)
}

// committed commits the zombie's batch that just stepped: nothing to do
// when it wrote nothing; else the store compares the epoch the commit
// carries with the lease's. It reports whether the batch's effects may
// be applied; when not, the zombie has stopped.
func (z *zombie) committed(now time.Time) bool {
	w := z.store.Memory.Writes()
	if w == z.before {
		return true
	}
	z.before = w
	u := z.u
	ops := z.ops
	z.ops = nil
	durable := u.store
	if z.epoch == durable.epoch {
		durable.commitEpoch = z.epoch
		for _, op := range ops {
			op(durable)
		}
		durable.commitEpoch = 0
		return true
	}
	u.led.CommitRefused(u.lt(now), z.epoch, z.what)
	u.w.Note("failover: the store refused the commit of the Core of epoch " + strconv.FormatUint(z.epoch, 10) + " (" + z.what + "): fenced")
	z.stop(now, "its commit was refused (fenced)")
	return false
}

// stop ends the zombie: its process exits and its connections break.
func (z *zombie) stop(now time.Time, why string) []sim.Effect {
	u := z.u
	if !z.dead {
		z.dead = true
		u.w.Note("failover: the Core of epoch " + strconv.FormatUint(z.epoch, 10) + " stops: " + why)
		u.led.ZombieGone(u.lt(now), z.epoch)
	}
	if u.failover.zombie == z {
		u.failover.zombie = nil
	}
	var out []sim.Effect
	for _, c := range z.closes {
		if z.conns[c.(sim.Close).Conn] {
			out = append(out, c)
		}
	}
	z.closes = out
	return out
}

// record notes a write of the zombie's batch: kept for a commit the store
// would accept (only a planted bug does).
func (z *zombie) record(what string, op func(*observedStore)) {
	z.what = what
	z.ops = append(z.ops, op)
}

// prefixTimers puts prefix before the IDs of the timers out sets or
// cancels.
func prefixTimers(prefix string, out []sim.Effect) []sim.Effect {
	if prefix == "" {
		return out
	}
	for i, ef := range out {
		switch e := ef.(type) {
		case sim.SetTimer:
			e.Timer = sim.TimerID(prefix) + e.Timer
			out[i] = e
		case sim.CancelTimer:
			e.Timer = sim.TimerID(prefix) + e.Timer
			out[i] = e
		}
	}
	return out
}

// durable reports a write the durable store makes, with the epoch its
// commit carries, once a takeover happened.
func (s *observedStore) durable(kind, id string) {
	if !s.u.led.FailoverActive() {
		return
	}
	epoch := s.epoch
	if s.commitEpoch != 0 {
		epoch = s.commitEpoch
	}
	s.u.led.DurableWrite(s.u.lt(s.u.w.Now()), epoch, kind+" "+id)
}

// SaveCounters stores the counters (a write like any other for the
// fence and the epoch record).
func (s *observedStore) SaveCounters(c core.Counters) {
	if z := s.fence; z != nil {
		z.record("counters", func(d *observedStore) { d.SaveCounters(c) })
		s.Memory.SaveCounters(c)
		return
	}
	s.durable("counters", "")
	s.Memory.SaveCounters(c)
}

// cloneMemory copies every record of m into a new store.
func cloneMemory(m *store.Memory) *store.Memory {
	c := store.NewMemory()
	c.SaveCounters(m.Counters())
	for _, r := range m.Sessions() {
		c.PutSession(r)
	}
	for _, t := range m.Turns() {
		c.PutTurn(t)
		for _, in := range m.Inputs(t.ID) {
			c.PutInput(t.ID, in)
		}
		for _, ev := range m.Events(t.ID) {
			c.AppendEvent(t.ID, ev)
		}
	}
	for _, p := range m.EnvironmentPreparations() {
		c.PutEnvironmentPreparation(p)
	}
	for _, r := range m.Suspensions() {
		c.PutSuspension(r)
	}
	return c
}

// tapFailover hands the ledger the frames Core's ends put on the wire
// once a takeover happened (the zombie frame check).
func (u *universe) tapFailover(ev sim.TapEvent) {
	if ev.Kind != sim.TapSent || ev.From != coreID || ev.Forged || !u.led.FailoverActive() {
		return
	}
	u.led.CoreFrameSent(ev.At, uint64(ev.Conn), ev.Frame)
}

// appendable reports whether d can take the write op a zombie recorded
// (a planted bug replays them: a record whose sequence moved on in the
// durable store is skipped).
func eventAppendable(d *observedStore, turn string, seq uint64) bool {
	return uint64(len(d.Memory.Events(turn)))+1 == seq
}

func inputPuttable(d *observedStore, turn string, index int) bool {
	return index >= 1 && index <= len(d.Memory.Inputs(turn))+1
}
