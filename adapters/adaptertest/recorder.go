package adaptertest

import (
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// recorder turns what the relay and the observed adapter show into
// sim/check records and this package's own checks, and attributes every
// violation to the workload step it was found in. Safe for concurrent
// use: relay pumps, adapter calls and the workload all record.
type recorder struct {
	mu        sync.Mutex
	ledger    *check.Ledger
	device    string
	installed []wire.SupportedAgentKind
	rep       *Report
	step      int
	stepName  string
	start     time.Time

	executors map[string]bool // executor → confirmed closed
	turns     map[string]bool // run → settled
	nextEx    int
	applied   map[string]bool // run\x00input
	doneSent  map[string]bool // conn\x00run
}

func newRecorder(device string, rep *Report) *recorder {
	r := &recorder{ledger: check.NewLedger(), device: device, rep: rep, start: time.Now(),
		executors: map[string]bool{}, turns: map[string]bool{}, applied: map[string]bool{}, doneSent: map[string]bool{}}
	for _, e := range clauseTable {
		rep.clause(e.check)
	}
	return r
}

func (r *recorder) now() int64 { return time.Now().UnixNano() }

// setStep names the workload step whose effects are recorded next.
func (r *recorder) setStep(n int, name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.step, r.stepName = n, name
}

// failLocked records a failure of check at the current step.
func (r *recorder) failLocked(chk, format string, args ...any) {
	at := time.Since(r.start).Round(time.Millisecond)
	msg := fmt.Sprintf("step %d (%s) at +%s: %s", r.step, r.stepName, at, fmt.Sprintf(format, args...))
	c := r.rep.clause(chk)
	if c.Exercised == 0 {
		c.Exercised = 1
	}
	c.Failures = append(c.Failures, msg)
}

func (r *recorder) exerciseLocked(chk string) { r.rep.clause(chk).Exercised++ }

// drainLocked moves the ledger's new violations into the report.
func (r *recorder) drainLocked() {
	for _, v := range r.ledger.AfterStep(uint64(r.step)) {
		if judged(v.Check) {
			r.failLocked(v.Check, "%s", v.Message)
		}
	}
}

func (r *recorder) executorCreated() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nextEx++
	id := "e" + strconv.Itoa(r.nextEx)
	r.executors[id] = false
	r.ledger.ExecutorCreated(r.now(), r.device, id)
	r.drainLocked()
	return id
}

func (r *recorder) executorClosed(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.executors[id] = true
	r.ledger.ExecutorClosed(r.now(), r.device, id)
	r.drainLocked()
}

func (r *recorder) turnCreated(run, executor string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.exerciseLocked(check.CheckRunStartedTwice)
	if _, ok := r.turns[run]; !ok {
		r.turns[run] = false
		r.rep.RunsStarted++
	}
	r.ledger.TurnCreated(r.now(), r.device, run)
	r.drainLocked()
}

func (r *recorder) turnSettled(run, executor string, s agent.TurnSettlement, completed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.turns[run] = true
	outcome := check.NativeCancelled
	if completed {
		outcome = check.NativeCompleted
	}
	now := r.now()
	r.ledger.TurnSettled(now, run, outcome)
	if !s.Reusable {
		r.ledger.ExecutorRetired(now, r.device, run, executor)
	}
	r.drainLocked()
}

func (r *recorder) inputApplied(run, input string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := run + "\x00" + input
	if r.applied[k] {
		return // one receipt may be awaited more than once
	}
	r.applied[k] = true
	r.exerciseLocked(check.CheckInputDeliveredTwice)
	r.ledger.InputApplied(r.now(), run, input)
	r.drainLocked()
}

// wire records one relay observation as the network events both ends
// see (the relay forwards at once, so sent and delivered coincide).
func (r *recorder) wire(ev tapEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	at := r.now()
	base := check.WireEvent{At: at, Conn: ev.conn}
	switch ev.kind {
	case "open":
		r.feed(base, check.WireOpened, r.device, check.CoreNode)
		r.feed(base, check.WireOpened, check.CoreNode, r.device)
	case "close":
		base.Reason = ev.reason
		r.feed(base, check.WireClosed, r.device, check.CoreNode)
		r.feed(base, check.WireClosed, check.CoreNode, r.device)
	case "daemon", "core":
		base.Raw = ev.raw
		base.Frame, base.DecodeErr = wire.Decode(ev.raw)
		from, to := r.device, check.CoreNode
		if ev.kind == "core" {
			from, to = to, from
		}
		if ev.kind == "daemon" && base.HasFrame() {
			r.judgeDaemonFrame(ev.conn, base.Frame)
		}
		r.feed(base, check.WireSent, from, to)
		r.feed(base, check.WireDelivered, from, to)
	}
	r.drainLocked()
}

func (r *recorder) feed(ev check.WireEvent, kind, from, to string) {
	ev.Kind, ev.From, ev.To = kind, from, to
	r.ledger.Wire(ev)
}

// judgeDaemonFrame counts what the campaign checkers judge in a daemon
// frame and runs this package's own frame checks.
func (r *recorder) judgeDaemonFrame(conn uint64, f wire.Frame) {
	key := strconv.FormatUint(conn, 10) + "\x00" + f.ID
	switch p := f.Payload.(type) {
	case wire.Heartbeat:
		r.exerciseLocked(CheckDeclaredOnWire)
		if !reflect.DeepEqual(p.SupportedAgentKinds, r.installed) {
			r.failLocked(CheckDeclaredOnWire, "heartbeat declares %d kinds that differ from the installed registry", len(p.SupportedAgentKinds))
		}
	case wire.Done, wire.RunError:
		if _, isDone := p.(wire.Done); isDone {
			r.exerciseLocked(check.CheckPublishedBeforeSettled)
			r.exerciseLocked(CheckOutputAfterDone)
		}
		if r.doneSent[key] {
			r.failLocked(CheckOutputAfterDone, "run %s: %s after its done", f.ID, f.Type())
		}
		if _, isDone := p.(wire.Done); isDone {
			r.doneSent[key] = true
		}
	case wire.Delta, wire.Thinking, wire.OutputMessage, wire.ToolCall, wire.UsageUpdate, wire.FunctionCall,
		wire.PermissionRequest, wire.UserChoicePrompt:
		if r.doneSent[key] {
			r.failLocked(CheckOutputAfterDone, "run %s: %s after its done", f.ID, f.Type())
		}
	case wire.PromptSteerAck:
		r.exerciseLocked(check.CheckRefusalCode)
		switch {
		case p.Accepted:
			r.exerciseLocked(check.CheckAcceptedWithoutTruth)
			r.ledger.ReceiptSent(r.now(), f.ID, p.InputID, check.StageAccepted)
		case p.Written:
			r.ledger.ReceiptSent(r.now(), f.ID, p.InputID, check.StageWritten)
		}
	case wire.InteractionDecisionAck:
		r.exerciseLocked(check.CheckRefusalCode)
		if p.Applied {
			r.exerciseLocked(check.CheckPublishedBeforeSettled)
		}
	case wire.PreparationStatus:
		r.exerciseLocked(check.CheckRefusalCode)
	}
}

// owned returns the executors not confirmed closed and the Turns not
// settled, sorted.
func (r *recorder) owned() (executors, turns []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range sortedKeys(r.executors) {
		if !r.executors[id] {
			executors = append(executors, id)
		}
	}
	for _, run := range sortedKeys(r.turns) {
		if !r.turns[run] {
			turns = append(turns, run)
		}
	}
	return executors, turns
}

// shutdownReported judges the daemon's shutdown report against what the
// adapter confirmed.
func (r *recorder) shutdownReported(complete bool, owned int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.exerciseLocked(check.CheckShutdownReport)
	r.ledger.ShutdownReported(r.now(), r.device, complete, owned)
	r.drainLocked()
}
