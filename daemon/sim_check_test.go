package daemon_test

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/harness"
	"github.com/turnstile-sim/turnstile/wire"
)

func suiteCaps() wire.AgentKindCapabilities {
	c := wire.AllCapabilities(wire.CapabilityUnsupported)
	for _, f := range []*wire.CapabilitySupport{&c.Streaming, &c.Steering, &c.DurableTurns,
		&c.DurableInputReceipts, &c.Preparation, &c.ExecutionControls, &c.ToolObservations, &c.EnvironmentNone} {
		*f = wire.CapabilitySupported
	}
	return c
}

func suiteConfig() daemon.Config {
	return daemon.Config{
		Kinds:         []daemon.KindConfig{{Kind: "contract", Available: true, Capabilities: suiteCaps()}},
		DaemonVersion: "sim",
		Limits: daemon.Limits{
			ActiveMax: 2, ExecutorsMax: 4, IdleExecutorsMax: 2, IdleExpiry: 20 * time.Second,
			CloseRetryBackoff: 200 * time.Millisecond, CloseRetryBackoffMax: 2 * time.Second,
			AdmissionExpiry: 3 * time.Second, // short, so starts race expiry
		},
	}
}

type handleInfo struct {
	gen       daemon.ConnID
	expiresAt time.Time // virtual time
	ended     string    // released, expired or failed: no start may follow
	started   uint64    // revision of the started status
}

// checker observes the daemon's events and effects against the Harness's
// ground truth. It never steers the run.
type checker struct {
	w       *sim.Kernel
	closes  map[string]int // CloseExecutor calls per executor
	d       *harness.Device
	cfg     daemon.Config
	gen     daemon.ConnID
	ids     map[daemon.ConnID]map[string]bool // IDs Core used on each connection
	handles map[string]*handleInfo
	runTurn map[string]daemon.TurnID
	runHdl  map[string]string
	err     error
}

func newChecker(w *sim.Kernel, cfg daemon.Config) *checker {
	return &checker{w: w, closes: map[string]int{}, cfg: cfg.WithDefaults(), ids: map[daemon.ConnID]map[string]bool{},
		handles: map[string]*handleInfo{}, runTurn: map[string]daemon.TurnID{}, runHdl: map[string]string{}}
}

func (c *checker) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf(format, args...)
	}
}

func (c *checker) DaemonEvent(now time.Time, ev daemon.Event) {
	switch e := ev.(type) {
	case daemon.ConnOpened:
		c.gen = e.Conn
		c.ids[e.Conn] = map[string]bool{}
	case daemon.FrameReceived:
		ids := c.ids[e.Conn]
		ids[e.Frame.ID] = true
		if s, ok := e.Frame.Payload.(wire.ExecutionStart); ok {
			ids[s.RunID] = true
		}
	}
}

// DaemonStepped is not needed: capacity is checked after every kernel step.
func (c *checker) DaemonStepped(time.Time, *daemon.Machine) {}

// ShellError fails the run: a frame the machine emitted did not encode.
func (c *checker) ShellError(_ time.Time, msg string) { c.fail("shell: %s", msg) }

func (c *checker) DaemonEffect(now time.Time, e daemon.Effect) {
	switch v := e.(type) {
	case daemon.Send:
		c.sent(now, v)
	case daemon.NativeCall:
		switch op := v.Op.(type) {
		case daemon.StartTurn:
			c.nativeStart(now, op)
		case daemon.CloseExecutor:
			if c.closes[op.Executor]++; c.closes[op.Executor] > 1 {
				c.w.Sometimes(markCleanupRetried)
			}
		}
	case daemon.Report:
		if v.Complete {
			c.w.Sometimes(markShutdownComplete)
			c.completeOwnsNothing()
		}
	}
	c.mark(e)
}

// completeOwnsNothing: a complete shutdown Report means the Harness holds
// no open executor and no unsettled Turn.
func (c *checker) completeOwnsNothing() {
	truth := c.d.Node().Harness().Truth()
	if open, unsettled := truth.OpenExecutors(), truth.UnsettledTurns(); len(open)+len(unsettled) > 0 {
		c.fail("complete shutdown report while the Harness holds executors %v and turns %v", open, unsettled)
	}
}

// Rare daemon states the suite must reach over its seeds.
const (
	markAdmissionExpired = "daemon_admission_expired"
	markCapacity         = "daemon_capacity_rejection"
	markReceiptUnknown   = "daemon_receipt_unknown"
	markReceiptAccepted  = "daemon_receipt_accepted"
	markCancelApplied    = "daemon_cancel_applied"
	markCancelFailed     = "daemon_cancel_failed"
	markCleanupRetried   = "daemon_cleanup_retried"
	markReused           = "daemon_executor_reused"
	markStartNoTurn      = "daemon_start_without_turn"
	markInvalidStart     = "daemon_invalid_start"
	markShutdownComplete = "daemon_shutdown_complete"
	// done built from the settlement: the native done was suppressed
	markDoneFromSettlement = "daemon_done_from_settlement"
)

var daemonMarks = []string{markAdmissionExpired, markCapacity, markReceiptUnknown, markReceiptAccepted,
	markCancelApplied, markCancelFailed, markCleanupRetried, markReused, markStartNoTurn, markShutdownComplete, markInvalidStart, markDoneFromSettlement}

func (c *checker) mark(e daemon.Effect) {
	s, ok := e.(daemon.Send)
	if !ok {
		return
	}
	switch p := s.Frame.Payload.(type) {
	case wire.PreparationStatus:
		switch {
		case p.State == wire.StateExpired:
			c.w.Sometimes(markAdmissionExpired)
		case p.ErrorCode == daemon.CodePreparationCapacity || p.ErrorCode == daemon.CodeExecutorCapacity:
			c.w.Sometimes(markCapacity)
		case p.Reused && p.State == wire.StateReady:
			c.w.Sometimes(markReused)
		case p.State == wire.StateRejected && p.Operation == wire.TypeExecutionStart && p.Handle != "":
			c.w.Sometimes(markStartNoTurn)
		case p.ErrorCode == daemon.CodeInvalidStart:
			c.w.Sometimes(markInvalidStart)
		}
	case wire.PromptSteerAck:
		if p.ErrorCode == daemon.CodeOutcomeUnknown {
			c.w.Sometimes(markReceiptUnknown)
		}
		if p.Accepted {
			c.w.Sometimes(markReceiptAccepted)
		}
	case wire.InteractionDecisionAck:
		if p.Applied {
			c.w.Sometimes(markCancelApplied)
		} else if p.ErrorCode == daemon.CodeCancelFailed {
			c.w.Sometimes(markCancelFailed)
		}
	}
}

// sent checks one frame: nothing replayed or redirected to a connection
// that did not ask for it, handle revisions, receipts bounded by truth.
func (c *checker) sent(now time.Time, s daemon.Send) {
	f := s.Frame
	if f.ID != "" && !c.ids[s.Conn][f.ID] {
		c.fail("frame %s on connection %d that never used its ID", daemon.DescribeFrame(f), s.Conn)
	}
	truth := c.d.Node().Harness().Truth()
	switch p := f.Payload.(type) {
	case wire.PreparationStatus:
		c.status(now, s.Conn, p)
	case wire.PromptSteerAck:
		in := truth.Input(c.runTurn[f.ID], p.InputID)
		if p.Written && (in == nil || !in.Written) {
			c.fail("written receipt for %s/%s the Harness never wrote", f.ID, p.InputID)
		}
		if p.Accepted && (in == nil || !in.Applied) {
			c.fail("accepted receipt for %s/%s the Harness never applied", f.ID, p.InputID)
		}
	case wire.InteractionDecisionAck:
		if t := truth.Turn(c.runTurn[f.ID]); p.Applied && (t == nil || !t.Settled) {
			c.fail("applied cancel receipt for %s before native settlement", f.ID)
		}
	case wire.Done:
		t := truth.Turn(c.runTurn[f.ID])
		if t == nil || !t.Settled {
			c.fail("done for %s before native settlement", f.ID)
			return
		}
		// The simulated Harness puts its native session on every terminal
		// result and settlement outcome: a done without it was fabricated.
		if p.Metadata == nil || p.Metadata.AgentSessionID == "" {
			c.fail("done for %s without the native outcome: %s", f.ID, daemon.DescribeFrame(f))
		}
		if t.DoneSuppressed {
			c.w.Sometimes(markDoneFromSettlement)
		}
	}
}

// status follows a handle's statuses. The deadline is the grant instant
// plus the configured expiry, in virtual time: expires_at on the wire is
// the daemon's wall clock, which may have jumped.
func (c *checker) status(now time.Time, gen daemon.ConnID, p wire.PreparationStatus) {
	if p.State == wire.StateRejected {
		return
	}
	h := c.handles[p.Handle]
	if h == nil {
		h = &handleInfo{gen: gen, expiresAt: now.Add(c.cfg.WithDefaults().Limits.AdmissionExpiry)}
		c.handles[p.Handle] = h
	}
	if h.gen != gen {
		c.fail("handle %s of connection %d published on %d", p.Handle, h.gen, gen)
	}
	switch p.State {
	case wire.StateStarting:
		c.runHdl[p.RunID] = p.Handle
	case wire.StateStarted:
		if h.started != 0 && h.started != p.Revision {
			c.fail("handle %s started twice", p.Handle)
		}
		h.started = p.Revision
	case wire.StateReleased, wire.StateExpired, wire.StateFailed:
		h.ended = p.State
	}
}

// nativeStart checks the transfer behind every native StartTurn: a live,
// unexpired handle of the current connection, never started before.
func (c *checker) nativeStart(now time.Time, op daemon.StartTurn) {
	c.runTurn[op.Run] = op.Turn
	h := c.handles[c.runHdl[op.Run]]
	switch {
	case h == nil:
		c.fail("native start of %s without a starting handle", op.Run)
	case h.ended != "":
		c.fail("native start of %s on a handle already %s", op.Run, h.ended)
	case !now.Before(h.expiresAt):
		c.fail("native start of %s after its handle expired", op.Run)
	case h.gen != c.gen:
		c.fail("native start of %s on a handle of connection %d (current %d)", op.Run, h.gen, c.gen)
	}
}

// afterStep checks capacity on both sides and the Harness's contract log.
func (c *checker) afterStep(v *sim.View) error {
	if c.err != nil {
		return c.err
	}
	n := c.d.Node()
	truth := n.Harness().Truth()
	if vs := truth.Violations(); len(vs) > 0 {
		return fmt.Errorf("harness saw: %s", vs[0])
	}
	l := c.cfg.Limits
	if m := n.Machine(); m != nil {
		cp := m.Capacity()
		if cp.Active > l.ActiveMax || cp.Executors > l.ExecutorsMax || cp.Idle > l.IdleExecutorsMax || cp.Records > l.AdmissionRecordsMax {
			return fmt.Errorf("daemon capacity exceeded: %+v", cp)
		}
	}
	if n := len(truth.OpenExecutors()); n > l.ExecutorsMax {
		return fmt.Errorf("harness holds %d executors, limit %d (closing and uncertain included)", n, l.ExecutorsMax)
	}
	if n := len(truth.UnsettledTurns()); n > l.ActiveMax {
		return fmt.Errorf("harness holds %d unsettled turns, limit %d", n, l.ActiveMax)
	}
	return nil
}

// atEnd: after heal and shutdown nothing native is orphaned: whatever the
// Harness still holds, the daemon still owns; a complete shutdown means
// the Harness holds nothing.
func (c *checker) atEnd(v *sim.View) error {
	n := c.d.Node()
	truth := n.Harness().Truth()
	owned := map[string]bool{}
	for _, r := range n.Machine().Owned() {
		owned[r.Kind+":"+r.ID] = true
	}
	for _, id := range truth.OpenExecutors() {
		if !owned["executor:"+id] {
			return fmt.Errorf("orphaned executor %s", id)
		}
	}
	for _, id := range truth.UnsettledTurns() {
		if !owned["turn:"+id] {
			return fmt.Errorf("orphaned turn %s", id)
		}
	}
	if r := n.Report(); r == nil || !r.Complete {
		return fmt.Errorf("shutdown incomplete: %s; harness %s", describeReport(r), truth)
	}
	return nil
}

func describeReport(r *daemon.Report) string {
	if r == nil {
		return "no report"
	}
	return r.Describe()
}

// suiteOptions builds the world for one seed.
func suiteOptions(out **suiteWorld) sim.Options {
	cfg := suiteConfig()
	return sim.Options{
		Workload: 8,
		Swarm:    sim.SwarmConfig{HealMin: 5 * time.Second, HealMax: 20 * time.Second},
		// the Harness may draw a 290–320 s preparation (harness.DrawConfig),
		// which a shutdown after heal must wait out
		LivenessTimeout: 10 * time.Minute,
		Describe:        harness.DescribeFrame,
		Setup: func(w *sim.Kernel) {
			sw := &suiteWorld{}
			if out != nil {
				*out = sw
			}
			sw.chk = newChecker(w, cfg)
			sw.d = harness.NewDevice(w, nodeDaemon, nodeCore, cfg, harness.DrawConfig(w.Rand("harness-config")))
			sw.d.Observer = sw.chk
			sw.d.Encode = encodeClassified
			sw.chk.d = sw.d
			sw.core = newCorePeer(w)
			w.AddNode(nodeCore, func() sim.Node { return sw.core })
			w.AddNode(nodeDaemon, sw.d.Factory)
			// Every Harness fault kind is a scheduled fault the swarm
			// selects per seed, alongside the kernel's network kinds.
			harness.Register(w, []*harness.Device{sw.d})
			w.AddCheck(sim.Check{Name: "daemon_safety", AfterStep: sw.chk.afterStep, AtEnd: sw.chk.atEnd})
			w.SetConvergence(func() (bool, string) {
				if !sw.core.finished() {
					return false, "core jobs unfinished: " + sw.core.pending()
				}
				if r := sw.d.Node().Report(); r == nil || !r.Complete {
					return false, "daemon shutdown: " + describeReport(r)
				}
				return true, ""
			})
		},
	}
}

type suiteWorld struct {
	d    *harness.Device
	chk  *checker
	core *corePeer
}

func (c *corePeer) pending() string {
	var parts []string
	for _, j := range c.jobs {
		if !j.state.terminal() {
			parts = append(parts, fmt.Sprintf("job%d:%d", j.n, j.state))
		}
	}
	return strings.Join(parts, " ")
}

const suiteSeeds = 200

var (
	flagSeed  = flag.Uint64("daemon.seed", 0, "run only this seed of the sim suite")
	flagTrace = flag.Bool("daemon.trace", false, "write the sim suite's trace to stdout")
)

func TestSimSuite(t *testing.T) {
	first, seeds := uint64(1), uint64(suiteSeeds)
	if testing.Short() || raceEnabled {
		seeds = 40
	}
	if *flagSeed != 0 {
		first, seeds = *flagSeed, 1
	}
	var steps uint64
	outcomes := map[jobState]int{}
	whys := map[string]int{}
	marks := map[string]int{}
	start := time.Now()
	for seed := first; seed < first+seeds; seed++ {
		var sw *suiteWorld
		opts := suiteOptions(&sw)
		if *flagTrace {
			opts.TraceWriter = os.Stdout
		}
		r := sim.Run(seed, opts)
		if r.Failed() || !r.Converged {
			require.Fail(t, fmt.Sprintf("seed %d: %v pending=%q\nreplay: go test ./daemon -run 'TestSimSuite$' -daemon.seed=%d -daemon.trace\n%s", seed, r.Violations, r.Pending, seed, strings.Join(r.Tail, "\n")))
		}
		steps += r.Stats.Steps
		for _, j := range sw.core.jobs {
			outcomes[j.state]++
			if j.state == jobGaveUp {
				whys[j.why]++
			}
		}
		for k, n := range r.Marks {
			marks[k] += n
		}
	}
	t.Logf("%d seeds, %d steps, %v; job outcomes done=%d lost=%d released=%d gave-up=%d",
		seeds, steps, time.Since(start).Round(time.Millisecond), outcomes[jobDone], outcomes[jobLost], outcomes[jobReleased], outcomes[jobGaveUp])
	t.Logf("gave up: %v", whys)
	names := make([]string, 0, len(marks))
	for k := range marks {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		t.Logf("mark %s: %d", k, marks[k])
	}
	for _, k := range daemonMarks {
		require.Truef(t, marks[k] != 0 || seeds < suiteSeeds, "rare daemon state %s never reached", k)
	}
	require.Truef(t, seeds <= 1 ||
		outcomes[jobDone] != 0 &&
			outcomes[jobLost] != 0, "the suite never completed or never lost a turn: %v", outcomes)
}

func TestSimSuiteDeterministic(t *testing.T) {
	for _, seed := range []uint64{3, 17} {
		a := sim.Run(seed, suiteOptions(nil))
		b := sim.Run(seed, suiteOptions(nil))
		require.Equalf(t, b.Fingerprint, a.Fingerprint, "seed %d: fingerprints differ", seed)
	}
}

func (c *checker) MachinePanicked(_ time.Time, p daemon.StepPanic) { panic(p.Value) }

// encodeClassified is the suite's daemon shell encoder: the simulated
// engine fails with codes and statuses outside the classified set (as a
// real engine may), and the encoder accepts only the classified form, so
// an error event is classified (wire-reference §6.3) before it is sent.
func encodeClassified(f wire.Frame) ([]byte, error) {
	if e, ok := f.Payload.(wire.RunError); ok {
		e.Code, e.HTTPStatus = wire.ClassifyEngineError(e.Code, e.HTTPStatus)
		f.Payload = e
	}
	return wire.Encode(f)
}
