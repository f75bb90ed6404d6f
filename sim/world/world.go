package world

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/sim/harness"
	"github.com/turnstile-sim/turnstile/sim/linearize"
	"github.com/turnstile-sim/turnstile/wire"
)

// Config selects what a run simulates. The zero value is the default
// campaign world: devices drawn from the seed, the default workload and a
// swarm over every fault kind.
type Config struct {
	Devices int             // 1–4 daemons; 0 = drawn from the seed
	Turns   int             // turns in the workload; 0 = default (scaled by sim Kernel.Workload())
	Faults  []sim.FaultKind // nil = swarm over every kind (default); non-nil empty = no faults; else only these kinds
	// Draws replace the first draws of named streams ("params",
	// "workload", …): how a coverage-guided fuzzer steers the world.
	Draws sim.Draws
	// StepsMax bounds the run's steps (0 = the kernel's default, see
	// sim.Options.StepsMax); a run that reaches it stops with a violation
	// of sim.CheckStepsMax. A bound well below the default caps what
	// one run costs: FuzzWorld's budget (fuzz/world_test.go).
	StepsMax uint64
	// Pads, when set, lends the buffers of padded frames from one Run to
	// the next (pads.go); a campaign passes one to all its workers.
	Pads Pads

	// breakTruth makes the simulated Harness lie to the ledger (tests
	// only), so tests can prove that the checkers, linearizability, Shrink
	// and Replay work end to end on a failing run.
	breakTruth truthLie
	// auditSharedFrames keeps every decoding shared with a receiver so a
	// test can prove no machine or checker changed one (frame_path.go).
	auditSharedFrames bool
	// breakEncoding rewrites what the shells' encoder produces for the
	// frames it selects (tests only), to prove a frame encoded wrong is
	// still refused before it is sent (frame_path.go).
	breakEncoding func(wire.Frame, []byte) []byte
}

type truthLie uint8

const (
	truthHonest               truthLie = iota
	truthForgetApplied                 // applied inputs are never recorded
	truthCompletedAsCancelled          // natural completions are recorded as cancelled
)

// Outcome is one run of the world with its linearizability verdict.
type Outcome struct {
	Result   sim.Result
	Lin      linearize.Result
	HTML     []byte   // porcupine visualization when Lin is Illegal (faults annotated)
	Timeline []string // applied faults, one line each, in order
	Turns    int      // turns the workload submitted
	Inputs   int      // steer inputs the workload sent
	// Records counts ledger records by record method (TurnState,
	// HandleGranted, InputApplied, ReadTurn, ...) plus "marks", so tests
	// can prove each checker was fed.
	Records map[string]int
	// Marks are the ledger's rare-state marks (for campaign.MarkTally).
	Marks []check.MarkCount
	// TimersDecided counts, by timer (check.Timers), the outcomes a
	// timer's firing produced in this run, as the timing oracles saw them.
	TimersDecided map[string]int
	// TurnStates counts Core's final turn states ("completed",
	// "failed/<code>", "failed/preparation_start_failed/<runtime code>").
	TurnStates map[string]int
	// Derived is what the seed drew about the world: devices with their
	// capabilities and limits, Harness settings and the workload's shape.
	Derived Derived
	// Skipped counts, by kind, faults the kernel applied (and counted in
	// Result.Stats.Faults) that found no victim in the world: a crash of a
	// process already down. Injected = Stats.Faults[k] - Skipped[k].
	Skipped map[sim.FaultKind]int
}

// LinUnknown reports a linearizability check that timed out: neither a
// pass nor a violation.
func (o Outcome) LinUnknown() bool { return o.Lin.Result == porcupine.Unknown }

// workloadDefault is the workload knob (turns) of a default run.
const workloadDefault = 10

// Node names.
const coreID sim.NodeID = "core"

func deviceID(i int) sim.NodeID { return sim.NodeID(fmt.Sprintf("d%d", i+1)) }

// Options returns the kernel options of the world: Setup, frame rendering
// and the liveness phase. Run, Replay and Shrink use them; a campaign may
// pass them to sim.Run directly, but then it gets no linearizability check.
func Options(cfg Config) sim.Options {
	opts := sim.Options{
		Setup:           func(w *sim.Kernel) { setup(w, cfg, false) },
		Workload:        workloadDefault,
		LivenessTimeout: LivenessTimeout(0),
		Describe:        describeFrame,
		// Each kind is enabled in a third of the seeds: more seeds run
		// with few kinds, so rare interleavings that need a quiet
		// connection (a steer waiting out Core's written window) happen.
		Swarm: sim.SwarmConfig{Enable: sim.Ratio{Num: 1, Den: 3}},
	}
	opts.Draws = cfg.Draws
	opts.StepsMax = cfg.StepsMax
	if cfg.Turns > 0 {
		opts.Workload = cfg.Turns
		opts.LivenessTimeout = LivenessTimeout(cfg.Turns)
	}
	switch {
	case cfg.Faults == nil:
	case len(cfg.Faults) == 0:
		opts.Swarm.Kinds = []sim.FaultKind{}
	default:
		opts.Swarm.Kinds = slices.Clone(cfg.Faults)
	}
	return opts
}

// livenessBase is the liveness deadline after heal of a default workload
// (150 s, plus 60 s for the one harness_write_over_budget per device kept
// past heal, plus 330 s for a glacial preparation of up to 320 s that may
// still be running, plus 195 s for an Environment preparation exchange
// that waits out Core's runtime_prepare timeout before the connection's
// Sessions may run, plus 1000 s for a Session's workspace writes: up to
// workspaceOpsMax of them, each installed natively in up to
// harness.SlowInstallMax, queued one after another in front of the
// preparation of its Session's next Turn); livenessPerTurn is added for
// every turn beyond it.
// After heal, in the worst case every turn waits for one active slot of
// one device: its preparation (up to 8 s), its native turn (up to 11 s;
// one long turn per device up to 48 s, covered by the base), its release
// and a poll.
const (
	livenessBase    = 735*time.Second + workspaceOpsMax*harness.SlowInstallMax
	livenessPerTurn = 20 * time.Second
)

// LivenessTimeout is the liveness deadline after heal for a workload of
// turns (0: the default workload). It grows with the workload so that a
// correct system always converges however many turns it is given.
func LivenessTimeout(turns int) time.Duration {
	return livenessBase + livenessPerTurn*time.Duration(max(0, turns-workloadDefault))
}

// describeCache renders each frame once: the kernel describes a frame
// when it is sent and again when it is delivered, and both lines must be
// the same wire.Describe text. A cache lives for one run only; decode is
// how it decodes a frame it has not rendered yet (wire.Decode, or the
// universe's decoding shared with the wire tap).
type describeCache struct {
	lines  map[*byte]string
	decode func([]byte) (wire.Frame, error)
}

func newDescribeCache(decode func([]byte) (wire.Frame, error)) describeCache {
	return describeCache{lines: map[*byte]string{}, decode: decode}
}

func (c describeCache) describe(b []byte) string {
	if len(b) == 0 {
		return describeFrame(b)
	}
	if s, ok := c.lines[&b[0]]; ok {
		return s
	}
	f, err := c.decode(b)
	s := describeDecoded(b, f, err)
	c.lines[&b[0]] = s
	return s
}

// describeFrame renders a simulated frame for the trace with wire.Describe.
func describeFrame(b []byte) string {
	f, err := wire.Decode(b)
	return describeDecoded(b, f, err)
}

func describeDecoded(b []byte, f wire.Frame, err error) string {
	if err != nil {
		return fmt.Sprintf("undecodable %dB: %v", len(b), err)
	}
	return wire.Describe(f)
}

// Run executes one seed of the world and checks linearizability.
func Run(seed uint64, cfg Config) Outcome {
	return run(seed, cfg, Options(cfg))
}

// RunKeepTrace is Run with the full trace kept in Result.Trace (the
// fingerprint is Run's), for a campaign's determinism auditor.
func RunKeepTrace(seed uint64, cfg Config) Outcome {
	opts := Options(cfg)
	opts.KeepTrace = true
	return run(seed, cfg, opts)
}

// Replay runs a stored schedule (its seed included) and checks it again.
func Replay(s sim.Schedule, cfg Config) Outcome {
	opts := Options(cfg)
	opts.Schedule = &s
	opts.LivenessTimeout = LivenessTimeout(s.Workload)
	return run(s.Seed, cfg, opts)
}

// Shrink minimises the fault schedule and workload of a failing outcome.
// Each candidate is a full world run, linearizability included.
func Shrink(o Outcome, cfg Config) sim.ShrinkResult {
	opts := Options(cfg)
	opts.Setup = func(w *sim.Kernel) { setup(w, cfg, true) }
	opts.Describe = describeFrame
	return sim.Shrink(o.Result, opts)
}

func run(seed uint64, cfg Config, opts sim.Options) Outcome {
	var u *universe
	tap := &faultTap{}
	// The trace line and the wire tap share one decoding of each frame
	// sent (the universe exists once Setup has run, before any frame).
	opts.Describe = newDescribeCache(traceDecoder(&u)).describe
	tokens := &tokenTap{next: tap, tokens: func() []string {
		if u == nil || u.wl == nil {
			return nil
		}
		return u.wl.mcpTokens()
	}}
	opts.TraceWriter = tokens
	opts.Setup = func(w *sim.Kernel) { u = setup(w, cfg, false) }
	res := sim.Run(seed, opts)
	if v, ok := u.tokenViolation(tokens); ok {
		v.Step = res.Stats.Steps
		res.Violations = append(res.Violations, v)
	}
	u.wl.flush(u.lt(u.w.Now()))
	o := Outcome{Result: res, Timeline: tap.lines, Turns: u.wl.turnsSubmitted, Inputs: u.wl.inputsSent,
		Records: u.records, Marks: u.led.Marks(), TurnStates: map[string]int{}, Derived: u.derived(),
		Skipped: maps.Clone(u.skipped)}
	o.TimersDecided = map[string]int{}
	for _, tc := range u.led.TimersDecided() {
		o.TimersDecided[tc.Timer] = tc.Count
	}
	for _, t := range u.store.Memory.Turns() {
		k := string(t.State)
		if t.ErrorCode != "" {
			k += "/" + t.ErrorCode
		}
		if t.ErrorCode == "preparation_start_failed" {
			k += "/" + t.ErrorDetail
		}
		o.TurnStates[k]++
	}
	var html bytes.Buffer
	o.Lin = linearize.Check(u.led.History(), linearize.Options{Timeout: linearize.TimeoutDefault,
		Faults: faultEvents(res.Schedule), HTML: &html})
	if v, ok := check.LinearizeViolation(o.Lin, u.lt(u.w.Now())); ok {
		o.HTML = html.Bytes()
		lv := sim.Violation{Step: res.Stats.Steps, At: time.Duration(v.At), Check: check.CheckLinearizability,
			Message: v.Message}
		o.Result.Violations = append(o.Result.Violations, lv)
		if o.Result.Dump == nil {
			o.Result.Dump = u.dumpState(lv)
		}
	}
	u.returnPads()
	return o
}

// FaultKinds lists every fault kind the world can inject, sorted.
func FaultKinds() []sim.FaultKind {
	kinds := []sim.FaultKind{sim.FaultConnLoss, sim.FaultStall, sim.FaultSlow, sim.FaultDialRefuse}
	for _, k := range worldKinds() {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	return kinds
}

// ledgerOrder are the checks the ledger check reports after a step, in
// registry order (check.Rules): every after-step rule but the Harness
// contract, which its own kernel check reads from the Harnesses.
var ledgerOrder = func() []string {
	var out []string
	for _, r := range check.Rules() {
		if r.Verdict&check.AfterStep != 0 && r.Name != checkHarnessContract {
			out = append(out, r.Name)
		}
	}
	return out
}()

// checkPanic names a machine's failed assertion, the campaign's "panic"
// (campaign.CheckPanic): registered last among the after-step rules, so
// that a checker naming the rule the machine broke in that step reports
// first.
const checkPanic = "panic"

// checkWire names world-side failures: a machine produced a frame that
// wire refuses to encode.
const checkWire = "wire_encode"

// checkHarnessContract names breaches of the Harness contract by a daemon
// as the simulated Harness saw them: a start on a retired executor, a close
// under a live Turn, an input written twice, a Run started natively twice.
const checkHarnessContract = "harness_contract"

// addChecks wires the ledger into the kernel: the first check drains the
// ledger after every step; each check reports the violations of its name.
func (u *universe) addChecks() {
	// One kernel check judges the ledger after every step and reports
	// the first violation, in ledgerOrder, under its own name.
	u.w.AddCheck(sim.Check{Name: "ledger", AfterStep: func(v *sim.View) error {
		u.pendingV = append(u.pendingV, u.led.AfterStep(v.Step())...)
		if len(u.pendingV) == 0 {
			return nil
		}
		for _, name := range ledgerOrder {
			if err := u.takeViolation(name); err != nil {
				return &sim.NamedViolation{Check: name, Message: err.Error()}
			}
		}
		return nil
	}})
	u.w.AddCheck(sim.Check{Name: checkHarnessContract, AfterStep: u.harnessBreach})
	u.w.AddCheck(sim.Check{Name: check.CheckLiveness, AtEnd: func(v *sim.View) error {
		u.pendingV = append(u.pendingV, u.led.Final(u.lt(v.Now()))...)
		if err := u.takeViolation(check.CheckLiveness); err != nil {
			return err
		}
		return u.storeLiveness() // liveness_store.go
	}})
	u.w.AddCheck(sim.Check{Name: check.CheckOrphan, AtEnd: func(v *sim.View) error {
		return u.takeViolation(check.CheckOrphan)
	}})
	// The rules judged after a step and again at the end, by Final (the
	// held panic has its own check).
	for _, r := range check.Rules() {
		if name := r.Name; r.Verdict == check.AfterStep|check.AtEnd && name != checkPanic {
			u.w.AddCheck(sim.Check{Name: name + "_final", AtEnd: func(*sim.View) error { return u.takeViolation(name) }})
		}
	}
	u.w.AddCheck(u.heldPanicCheck())
	u.w.AddCheck(sim.Check{Name: checkUnreported, AtEnd: func(*sim.View) error { return u.unreported() }})
}

// harnessBreach reports the first contract breach a Harness recorded since
// the last step. Breaches are recorded as they happen, so checking after
// every step sees those of a daemon process that later crashes.
func (u *universe) harnessBreach(*sim.View) error {
	if u.breachesSeen == nil {
		u.breachesSeen = map[*harness.Truth]int{}
	}
	for _, d := range u.devices {
		n := d.Node()
		if n == nil {
			continue
		}
		t := n.Harness().Truth()
		all := t.Violations()
		if seen := u.breachesSeen[t]; len(all) > seen {
			u.breachesSeen[t] = seen + 1
			return fmt.Errorf("%s: %s", d.ID, all[seen])
		}
	}
	return nil
}

func (u *universe) takeViolation(name string) error {
	for i, v := range u.pendingV {
		if v.Check == name {
			u.pendingV = slices.Delete(u.pendingV, i, i+1)
			return fmt.Errorf("%s", v.Message)
		}
	}
	return nil
}

// fail records a world-side violation (reported by the wire_encode check).
func (u *universe) fail(check, format string, args ...any) {
	u.pendingV = append(u.pendingV, check1(check, fmt.Sprintf(format, args...)))
}

func check1(name, msg string) check.Violation { return check.Violation{Check: name, Message: msg} }

// lt converts a virtual instant to the ledger's time scale: nanoseconds
// since the simulation epoch.
func (u *universe) lt(t time.Time) int64 { return int64(t.Sub(sim.Epoch)) }

// faultTap collects the kernel's fault lines from the trace as it is
// written: the timeline of applied faults, kernel and world kinds alike,
// with what each did (or that it found no victim).
type faultTap struct{ lines []string }

func (t *faultTap) Write(p []byte) (int, error) {
	const marker = " !! fault "
	i := indexFaultMarker(p)
	if i < 0 {
		return len(p), nil
	}
	text := strings.TrimSpace(string(p[i+len(marker):]))
	switch {
	case strings.HasPrefix(text, "skipped"), strings.HasPrefix(text, "detail "):
		if n := len(t.lines); n > 0 {
			t.lines[n-1] += " (" + strings.TrimPrefix(text, "detail ") + ")"
		}
	default:
		t.lines = append(t.lines, text)
	}
	return len(p), nil
}

// indexFaultMarker is bytes.Index(p, " !! fault "), found by its rare
// second byte: the trace's lines are full of spaces, which makes a search
// led by one slow.
func indexFaultMarker(p []byte) int {
	const tail = "!! fault "
	for off := 0; ; {
		j := bytes.Index(p[off:], []byte(tail))
		if j < 0 {
			return -1
		}
		if j += off; j > 0 && p[j-1] == ' ' {
			return j - 1
		}
		off = j + 1
	}
}

// faultEvents annotates the linearizability visualization with the fault
// schedule of the run.
func faultEvents(s sim.Schedule) []linearize.Fault {
	out := make([]linearize.Fault, 0, len(s.Faults))
	for _, f := range s.Faults {
		ev := linearize.Fault{At: int64(f.At), Kind: string(f.Kind), Detail: string(f.Node)}
		if f.For > 0 {
			ev.Until = int64(f.At + f.For)
		}
		out = append(out, ev)
	}
	return out
}
