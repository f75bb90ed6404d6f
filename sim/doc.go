// Package sim is the deterministic simulator kernel: it runs protocol
// machines on a virtual clock over a simulated network, injects faults drawn
// from one seed, checks invariants after every step, and replays any run bit
// for bit from its seed or from a stored schedule.
//
// # Model
//
// A Kernel is one run's running state (package sim/world, by contrast, is
// the full-stack protocol world built on top of it). A Kernel holds nodes.
// A node is a Node: a deterministic machine stepped
// with the virtual time and one Event, returning the Effects the kernel must
// carry out. Services (a simulated Harness, a workload driver) are nodes too:
// they receive CallReceived and answer with Reply, possibly later through
// their own timers. Nodes are built by a Factory, which the kernel calls at
// the start and again after every Crash/Restart; durable state that must
// survive a crash lives outside the node.
//
// Events: Start, ConnOpened, Delivered, ConnClosed, DialFailed, TimerFired,
// CallReceived, CallReturned. Effects: Send, Close, Dial, SetTimer,
// CancelTimer, Call, Reply. Each effect type documents its ordering
// contract; in short:
//
//   - a step's effects are applied in order, before the next event;
//   - frames of one direction of a connection arrive in send order, each
//     once, unless the connection closes first, or unless the frame is
//     best effort (Send.Budget) and could not leave within its budget: it
//     is then dropped unsent (TapDropped), the connection left open;
//   - a graceful Close delivers the closer's frames already sent, then
//     ConnClosed to the peer; a broken connection loses every frame in
//     flight and each end learns at its own time;
//   - SetTimer replaces an armed timer of the same ID; CancelTimer is final;
//   - Call and Reply are delivered in the same virtual instant, after the
//     events already queued for it; a service may reply many times.
//
// Timer and call IDs belong to the node that chose them; connection IDs are
// assigned by the kernel and shared by both ends. A Dial's Query reaches the
// accepting end with ConnOpened, as an upgrade URL's query does.
//
// Taps (Kernel.Tap) observe every frame sent, delivered, lost or dropped
// and every open and close an end learns of (a crashed node's ends are
// reported closed by the node itself, reason ReasonCrashed). A hostile fault may
// install a Proxy on one direction of a connection (Kernel.SetProxy): it
// sees each frame the end's node sends and returns what crosses instead;
// Kernel.Forge puts a frame of its own on a direction. Both keep a
// direction's order and the transport's 4 MiB limit, and taps mark what
// they put on the wire as Forged. The default path (no proxy) is one nil
// check per frame.
//
// # Time and order
//
// Virtual time starts at Epoch and advances only when the event queue pops
// an item. The queue is ordered by (instant, sequence number), so items of
// the same instant run in the order they were scheduled; nothing depends on
// map or pointer order. The queue is bounded (Options.QueueMax): overflowing
// it is a bug and panics.
//
// # Seeds
//
// One uint64 seed drives the run. Every component draws from its own
// math/rand/v2 PCG stream derived from the seed and the component's name
// (Kernel.Rand("node:d1"), "network", "workload", ...), so adding a component
// never shifts the others' draws. The swarm draws the heal time and network
// parameters from "swarm", and each fault kind its enable decision and gap
// from "swarm:<kind>" and its timeline from "faults:<kind>": registering,
// enabling or restricting a kind never shifts another kind's faults.
// Probabilities are integer Ratios; no decision uses floating point.
//
// # Swarm, faults, heal and liveness
//
// Before the run, the swarm draws a Schedule from the seed: which fault
// kinds are enabled and how often (a random subset, as in swarm testing),
// network latencies, the heal time, and a timeline of Faults. Its String is
// the first trace line. Kernel kinds are conn_loss, stall, slow and
// dial_refuse; callers add their own kinds (a Core crash, a Harness failure)
// with Kernel.RegisterFault and a FaultHandler the kernel calls at each
// fault's instant (CrashRestart is one such handler). At the heal time every
// network fault ends (OnHeal hooks run for caller kinds) and the liveness
// phase starts: after every step the convergence predicate set with
// SetConvergence is evaluated; the run succeeds when it holds and fails the
// "liveness" check with the predicate's pending reason when
// Options.LivenessTimeout passes first, or when nothing is left to happen.
// A predicate whose reason costs more than its verdict is set with
// SetConvergenceLazy instead: it returns the reason as a function the
// kernel calls only for the violation and Result.Pending.
//
// # Checks and marks
//
// A Check observes the world through a read-only View after every step and
// at the end; it never steers. A failure is a Violation carrying the step
// number, the virtual time, the check's name and a message; the run stops at
// the first one. Sometimes and Reachable count rare-state marks per run
// (Result.Marks); a Campaign aggregates runs and reports marks never hit.
//
// # Trace, replay, shrink, audit
//
// Every delivered event and emitted effect, and every kernel action (fault,
// drop, crash, heal), is one canonical text line: the virtual time in
// seconds, the node, an arrow and a description (frames through
// Options.Describe, default length and leading hex bytes). The SHA-256 of
// all lines is Result.Fingerprint; the last lines are kept in Result.Tail,
// the full trace goes to Options.TraceWriter or Result.Trace on request.
//
// Run(seed, opts) and Replay(schedule, opts) reproduce the same fingerprint
// for the same Setup. Schedule.Validate rejects a schedule the kernel cannot
// run (negative times, faults at or after heal, overflowing durations);
// ParseSchedule returns its error and Replay panics on it. Shrink takes a failing Result and minimises its fault
// timeline (delta debugging) and workload size while the same check still
// fails. Audit runs a seed under several GOMAXPROCS values and reports the
// first divergent trace line of two runs (FirstDivergence).
//
// # Plugging in
//
// A test builds its world in Options.Setup: AddNode for each machine and
// service, AddCheck, RegisterFault, SetConvergence, and At/After/Inject for
// workload arrivals sized by Kernel.Workload. Machines under simulation must
// follow the machine rules enforced by this package's determinism guard
// (tidy_test.go): no wall clock, goroutines, channels, global randomness,
// os, net or sync, and no unsorted map order reaching an output.
package sim
