package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Driver is one side under test as one runner reaches it: it says what a
// step does to that side (README.md, "Runners"). It embeds a Log and
// reports through it; each method is called with the step set on it.
type Driver interface {
	// Deliver hands the side a frame of the scripted peer, rendered to
	// raw (an Invalid one the side must reject).
	Deliver(f *Frame, raw []byte)
	// Sent takes the next frame the side sent for f to match: the next
	// heartbeat when f is one (later periodic heartbeats are dropped),
	// else the next other frame. nil raw and nil error: the side sent
	// nothing; a non-nil error is the failure itself.
	Sent(f *Frame) (raw []byte, err error)
	// Unlisted takes the frames the side sent that no step listed yet,
	// each described for a failure.
	Unlisted() []string
	// The directives of the same names; Disconnect(true) checks that
	// Core closed the connection, Advance plays advance and silence.
	Connect()
	Disconnect(byCore bool)
	Advance(d time.Duration)
	VersionRefused(args map[string]string)

	log() *Log
}

// CoreDriver drives Core and plays the steps only Core has, each named
// after its directive.
type CoreDriver interface {
	Driver
	API(st Step)
	CoreState(args map[string]string)
	CoreInteraction(args map[string]string)
	CoreSubagents(args map[string]string)
	CoreSuspension(args map[string]string)
	CorePreparation(args map[string]string)
	CoreWorkspace(args map[string]string)
}

// RuntimeDriver drives the Runtime and plays its own steps.
type RuntimeDriver interface {
	Driver
	Harness(st Step)
	Settle(args map[string]string)
	RuntimeOwned(args map[string]string)
}

// Log is what a driver reports while a step plays: transcript lines and
// failures, each prefixed by the step's file:line and Name.
type Log struct {
	Name  string // prefixed to failures ("core", "runtime"); "": none
	pos   string
	lines []string
	errs  []error
}

func (l *Log) log() *Log { return l }

// Failf reports a failure of the step, also an ERROR transcript line.
func (l *Log) Failf(format string, args ...any) {
	prefix := l.pos + ": "
	if l.Name != "" {
		prefix += l.Name + ": "
	}
	err := fmt.Errorf(prefix+format, args...)
	l.errs = append(l.errs, err)
	l.lines = append(l.lines, "ERROR "+err.Error())
}

// Note adds a transcript line.
func (l *Log) Note(line string) { l.lines = append(l.lines, line) }

// Decode decodes a peer frame for a machine driver: ok is false after a
// failure; rejected is the decode error of an Invalid frame.
func (l *Log) Decode(f *Frame, raw []byte) (frame wire.Frame, rejected error, ok bool) {
	frame, err := wire.Decode(raw)
	switch {
	case err != nil && !f.Invalid:
		l.Failf("the scenario's %s frame does not decode: %v", f.Type, err)
		return frame, nil, false
	case err == nil && f.Invalid:
		l.Failf("the scenario's %s frame is marked invalid but decodes", f.Type)
		return frame, nil, false
	}
	return frame, err, true
}

// Pos is the file:line of the step under way ("" before the first).
func (l *Log) Pos() string { return l.pos }

// Failures are the failures logged since the Player last took them.
func (l *Log) Failures() []error { return l.errs }

// take returns and clears what was logged.
func (l *Log) take() ([]string, []error) {
	lines, errs := l.lines, l.errs
	l.lines, l.errs = nil, nil
	return lines, errs
}

// Report is what a whole play of one side found.
type Report struct {
	Skipped  string  // why the side skipped the scenario ("": it played)
	Failures []error // every failure, in order
	Failed   *Step   // the step Play stopped at (nil: none failed)
}

// Player plays one scenario's steps on one side through a driver.
type Player struct {
	side Side
	d    Driver
	core CoreDriver    // d, when it drives Core
	rt   RuntimeDriver // d, when it drives the Runtime
	b    *bindings
	rep  Report
	work Work // the zero-work rule
	open bool // the Runtime's connection is open
}

// NewPlayer returns a player of sc driving d, on the side d drives (d is
// a CoreDriver or a RuntimeDriver).
func NewPlayer(sc *Scenario, d Driver) *Player {
	p := &Player{d: d, side: Core}
	switch v := d.(type) {
	case CoreDriver:
		p.core = v
	case RuntimeDriver:
		p.side, p.rt = Runtime, v
	default:
		panic(fmt.Sprintf("scenarios: %T drives neither side", d))
	}
	p.b = newBindings(sc, p.side)
	return p
}

// Play plays sc through d until a step fails, else finishes the run.
func Play(sc *Scenario, d Driver) Report {
	p := NewPlayer(sc, d)
	for _, st := range sc.Flat() {
		if _, errs := p.Step(st); len(errs) > 0 {
			p.rep.Failed = &st
			return p.rep
		}
	}
	p.Finish()
	return p.rep
}

// resolveArgs replaces an argument that is a placeholder ("$name") by
// its value: one Core bound in a frame it sent (an Environment ID a Core
// behind the Agents API chose), or the peer's default.
func (p *Player) resolveArgs(st Step) (Step, bool) {
	var out map[string]string
	for _, k := range slices.Sorted(maps.Keys(st.Args)) {
		v := st.Args[k]
		if !strings.HasPrefix(v, "$") || strings.HasPrefix(v, "$$") {
			continue
		}
		val, ok := p.b.Value(v[1:], true)
		if !ok {
			p.d.log().Failf("api %s: %s=%s is not bound yet", st.Action, k, v)
			return st, false
		}
		if out == nil {
			out = maps.Clone(st.Args)
		}
		out[k] = val
	}
	if out != nil {
		st.Args = out
	}
	return st, true
}

// subject names the side in failures.
func (p *Player) subject() string {
	if p.side == Core {
		return "Core"
	}
	return "the Runtime"
}

// Step plays one step and returns its transcript lines and failures.
func (p *Player) Step(st Step) ([]string, []error) {
	l := p.d.log()
	l.pos = st.Pos
	if p.rep.Skipped != "" {
		return nil, nil
	}
	p.step(st)
	lines, errs := l.take()
	p.rep.Failures = append(p.rep.Failures, errs...)
	if len(errs) == 0 {
		p.work.Played(st)
	}
	return lines, errs
}

func (p *Player) step(st Step) {
	l := p.d.log()
	if st.Kind == KindOnly {
		if st.Side != p.side {
			p.rep.Skipped = "only the " + string(st.Side) + " side plays this scenario: " + st.Input
			l.Note("skipped: " + p.rep.Skipped)
		}
		return
	}
	if side, ok := sideOf[st.Kind]; ok && side != p.side {
		return // nothing reaches this side
	}
	// Frames may cross (README.md, "Frames and comparison"); every other
	// step first requires that all the side sent was listed.
	if st.Kind != KindFrame {
		p.requireQuiet("before " + string(st.Kind))
	}
	switch st.Kind {
	case KindFrame:
		if st.Side == p.side {
			p.expect(st.Frame)
		} else {
			p.deliver(st.Side, st.Frame)
		}
	case KindConnect, KindReconnect:
		p.open = true
		p.d.Connect()
	case KindDisconnect:
		if !p.open {
			l.Failf("disconnect with no connection open")
			return
		}
		p.open = false
		p.d.Disconnect(st.Side == Core)
	case KindAdvance:
		p.d.Advance(st.Duration)
	case KindSilence:
		p.d.Advance(st.Duration)
		if st.Side == p.side {
			p.requireQuiet("during the silence window")
		}
	case KindVersionRefused:
		p.d.VersionRefused(st.Args)
	default:
		p.own(st)
	}
}

// own plays a step of one side only, on its driver.
func (p *Player) own(st Step) {
	switch st.Kind {
	case KindAPI:
		if st, ok := p.resolveArgs(st); ok {
			p.core.API(st)
		}
	case KindCoreState:
		p.core.CoreState(st.Args)
	case KindCoreInteraction:
		p.core.CoreInteraction(st.Args)
	case KindCoreSubagents:
		p.core.CoreSubagents(st.Args)
	case KindCoreSuspension:
		p.core.CoreSuspension(st.Args)
	case KindCorePreparation:
		p.core.CorePreparation(st.Args)
	case KindCoreWorkspace:
		p.core.CoreWorkspace(st.Args)
	case KindHarness:
		p.rt.Harness(st)
	case KindSettle:
		p.rt.Settle(st.Args)
	case KindRuntimeOwned:
		p.rt.RuntimeOwned(st.Args)
	default:
		p.d.log().Failf("step kind %s not supported by this runner", st.Kind)
	}
}

// Finish reports the frames the side sent unlisted, then applies the
// zero-work rule to a run that failed nothing else: the one place that
// sees the whole run, for every runner.
func (p *Player) Finish() []error {
	l := p.d.log()
	if p.rep.Skipped != "" {
		return nil
	}
	p.requireQuiet("at the end of the scenario")
	if why := p.work.NoWork(); why != "" && len(p.rep.Failures) == 0 && len(l.errs) == 0 {
		l.Failf("%s", why)
	}
	_, errs := l.take()
	p.rep.Failures = append(p.rep.Failures, errs...)
	return errs
}

func (p *Player) requireQuiet(when string) {
	for _, f := range p.d.Unlisted() {
		p.d.log().Failf("%s sent a frame the scenario does not list %s: %s", p.subject(), when, f)
	}
}

// expect matches the next frame the side sent against f, binding the
// side's placeholders.
func (p *Player) expect(f *Frame) {
	l := p.d.log()
	if f.Rogue {
		name := strings.TrimPrefix(p.subject(), "the ")
		l.Note("not asserted: a misbehaving " + name + " sends this " + f.Type + "; this " + name + " does not")
		return
	}
	raw, err := p.d.Sent(f)
	switch {
	case err != nil:
		l.Failf("%v", err)
		return
	case raw == nil:
		l.Failf("%s sent nothing, want %s id=%s", p.subject(), f.Type, f.ID)
		return
	}
	if err := p.b.Match(f, raw); err != nil {
		l.Failf("%s: %v\n  sent %s", f.Type, err, raw)
		return
	}
	if f.Type == wire.TypeHeartbeat {
		l.Note("ok heartbeat")
		return
	}
	l.Note("ok " + string(raw))
}

// deliver renders a frame of the scripted peer and hands it to the side.
func (p *Player) deliver(from Side, f *Frame) {
	l := p.d.log()
	if f.Lost {
		l.Note("not delivered: the " + f.Type + " is lost in transit")
		return
	}
	if !p.open {
		l.Failf("%s frame %s with no connection open", from, f.Type)
		return
	}
	raw, err := p.b.Peer(f)
	if err != nil {
		l.Failf("%s: %v", f.Type, err)
		return
	}
	p.d.Deliver(f, raw)
}

// Earliest is the timer due first (the lowest ID of those due at once).
func Earliest[K ~string](timers map[K]time.Time) (id K, at time.Time, ok bool) {
	for k, t := range timers {
		if !ok || t.Before(at) || (t.Equal(at) && k < id) {
			id, at, ok = k, t, true
		}
	}
	return id, at, ok
}

// Work tallies what a run admitted, for the zero-work rule (README.md,
// "Runners"): Turns submitted, Runs started, and whether a core-state
// step said what became of the Turns.
type Work struct {
	submitted, started int
	outcome            bool
}

// Played records one step the run played without a failure.
func (w *Work) Played(st Step) {
	switch {
	case st.Kind == KindAPI && st.Action == "submit-turn":
		w.submitted++
	case st.Kind == KindFrame && st.Frame != nil && st.Frame.Type == "execution_start" && !st.Frame.Rogue && !st.Frame.Invalid:
		w.started++
	case st.Kind == KindCoreState && st.Args["state"] != "":
		w.outcome = true
	}
}

// NoWork is the zero-work rule's failure, or "".
func (w Work) NoWork() string {
	if w.submitted == 0 || w.started > 0 || w.outcome {
		return ""
	}
	return fmt.Sprintf("admitted no work: the scenario submitted %d Turn(s) but no Run started (no execution_start was played), "+
		"and no core-state step asserts what became of them", w.submitted)
}
