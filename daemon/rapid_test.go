package daemon

import (
	"flag"
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

// The rapid state-machine test drives the machine with random frames,
// native results, timer fires and connection changes, and checks every
// published fact against a small model of the admission table and the
// receipt pipeline (plus ground truth of what the "native side" did).

type mHandle struct {
	gen       ConnID
	req       string
	last      wire.PreparationStatus
	expiresAt int64
	starts    int
}

type ioKey struct {
	turn  TurnID
	input string
}

type admissionModel struct {
	m       *Machine
	now     time.Time
	gen     ConnID
	up      bool
	handles map[string]*mHandle
	byReq   map[string]string // current connection: request ID -> handle
	pending []NativeCall
	timers  map[TimerID]time.Time
	runs    map[string]TurnID // current connection: run -> turn
	turnRun map[TurnID]string
	settled map[TurnID]bool
	written map[ioKey]bool // ground truth: the native write happened
	applied map[ioKey]bool // ground truth: the native side consumed it
	writes  map[ioKey]int
	fresh   int
}

func newAdmissionModel() *admissionModel {
	md := &admissionModel{
		m: New(testConfig()), now: t0,
		handles: map[string]*mHandle{}, byReq: map[string]string{}, timers: map[TimerID]time.Time{},
		runs: map[string]TurnID{}, turnRun: map[TurnID]string{}, settled: map[TurnID]bool{},
		written: map[ioKey]bool{}, applied: map[ioKey]bool{}, writes: map[ioKey]int{},
	}
	return md
}

func (md *admissionModel) step(t *rapid.T, ev Event) {
	effs := md.m.Step(md.now, ev)
	for _, e := range effs {
		switch v := e.(type) {
		case Send:
			md.checkSend(t, v, effs)
		case SetTimer:
			md.timers[v.Timer] = v.At
		case CancelTimer:
			delete(md.timers, v.Timer)
		case NativeCall:
			md.checkCall(t, v, effs)
			md.pending = append(md.pending, v)
		}
	}
}

var allowedNext = map[string][]string{
	wire.StatePreparing: {wire.StateReady, wire.StateFailed, wire.StateExpired, wire.StateReleased},
	wire.StateReady:     {wire.StateStarting, wire.StateExpired, wire.StateReleased},
	wire.StateStarting:  {wire.StateStarted, wire.StateFailed},
}

func (md *admissionModel) checkSend(t *rapid.T, s Send, effs []Effect) {
	if !md.up || s.Conn != md.gen {
		require.Fail(t, fmt.Sprintf("send on generation %d while current is %d up=%t", s.Conn, md.gen, md.up))
	}
	switch p := s.Frame.Payload.(type) {
	case wire.PreparationStatus:
		md.checkStatus(t, s.Frame.ID, p)
	case wire.PromptSteerAck:
		k := ioKey{md.runs[s.Frame.ID], p.InputID}
		require.Truef(t, !p.Written || md.written[k] || md.applied[k], "written receipt for %v beyond ground truth", k)
		require.Truef(t, !p.Accepted || md.applied[k], "accepted receipt for %v beyond ground truth", k)
	case wire.Done:
		require.Truef(t, md.settled[md.runs[s.Frame.ID]], "done for %s before native settlement", s.Frame.ID)
	case wire.InteractionDecisionAck:
		require.Truef(t, !p.Applied || md.settled[md.runs[s.Frame.ID]], "applied cancel for %s before native settlement", s.Frame.ID)
	}
}

func (md *admissionModel) checkStatus(t *rapid.T, req string, p wire.PreparationStatus) {
	if p.State == wire.StateRejected {
		require.Equalf(t, uint64(0), p.Revision, "rejected status with revision %d", p.Revision)
		return
	}
	h := md.handles[p.Handle]
	if h == nil {
		require.Equalf(t, uint64(1), p.Revision, "new handle %s: revision %d expires %d", p.Handle, p.Revision, p.ExpiresAt)
		require.Equalf(t, md.now.Add(5*time.Minute).UnixMilli(), p.ExpiresAt, "new handle %s: revision %d expires %d", p.Handle, p.Revision, p.ExpiresAt)
		md.handles[p.Handle] = &mHandle{gen: md.gen, req: req, last: p, expiresAt: p.ExpiresAt}
		md.byReq[req] = p.Handle
		return
	}
	if h.gen != md.gen || h.req != req {
		require.Fail(t, fmt.Sprintf("handle %s of gen %d/%s published on gen %d/%s", p.Handle, h.gen, h.req, md.gen, req))
	}
	require.Truef(t, p.ExpiresAt == 0 || p.ExpiresAt == h.expiresAt, "handle %s expiry moved", p.Handle)
	if p.Revision == h.last.Revision {
		if p != h.last {
			require.Fail(t, fmt.Sprintf("republished status differs: %+v vs %+v", p, h.last))
		}
		return
	}
	if p.Revision != h.last.Revision+1 || !slices.Contains(allowedNext[h.last.State], p.State) {
		require.Fail(t, fmt.Sprintf("handle %s: %s rev %d -> %s rev %d", p.Handle, h.last.State, h.last.Revision, p.State, p.Revision))
	}
	require.Truef(t, p.State != wire.StateStarting ||
		md.now.UnixMilli() < h.expiresAt, "handle %s started after its expiry", p.Handle)
	if p.State == wire.StateStarted {
		h.starts++
		require.Truef(t, h.starts <= 1, "handle %s started twice", p.Handle)
	}
	h.last = p
}

func (md *admissionModel) checkCall(t *rapid.T, c NativeCall, effs []Effect) {
	switch op := c.Op.(type) {
	case StartTurn:
		md.runs[op.Run] = op.Turn
		md.turnRun[op.Turn] = op.Run
	case DurableWrite:
		k := ioKey{op.Turn, op.InputID}
		md.writes[k]++
		require.Truef(t, md.writes[k] <= 1, "input %v written twice (replayed)", k)
		for _, p := range md.pending {
			w, ok := p.Op.(DurableWrite)
			require.Truef(t, !ok || w.Turn != op.Turn, "two native writes outstanding on %s", op.Turn)
		}
	}
}

func (md *admissionModel) fireDue(t *rapid.T) {
	for {
		var due []TimerID
		for id, at := range md.timers {
			if !at.After(md.now) {
				due = append(due, id)
			}
		}
		if len(due) == 0 {
			return
		}
		slices.SortFunc(due, func(a, b TimerID) int {
			if c := md.timers[a].Compare(md.timers[b]); c != 0 {
				return c
			}
			return compareIDs(string(a), string(b))
		})
		delete(md.timers, due[0])
		md.step(t, TimerFired{Timer: due[0]})
	}
}

func (md *admissionModel) answer(t *rapid.T) {
	if len(md.pending) == 0 {
		t.Skip("no call outstanding")
	}
	i := rapid.IntRange(0, len(md.pending)-1).Draw(t, "call")
	c := md.pending[i]
	md.pending = slices.Delete(md.pending, i, i+1)
	ok := rapid.IntRange(0, 3).Draw(t, "ok") > 0
	var res Result
	switch op := c.Op.(type) {
	case Prepare:
		res = PrepareResult{Err: errIf(!ok)}
	case StartTurn:
		res = StartResult{Turn: ok}
	case DurableWrite:
		k := ioKey{op.Turn, op.InputID}
		outcome := WriteOutcome(rapid.IntRange(1, 3).Draw(t, "outcome"))
		md.written[k] = outcome == WriteWritten || outcome == WriteUnknown && ok
		res = WriteResult{Outcome: outcome}
	case Cancel:
		res = CancelResult{Err: errIf(!ok)}
	case AwaitSettlement:
		settled := rapid.IntRange(0, 4).Draw(t, "settled") > 0
		md.settled[op.Turn] = md.settled[op.Turn] || settled
		res = SettleResult{Settled: settled, Reusable: ok}
	case CloseExecutor:
		res = CloseResult{Err: errIf(!ok)}
	}
	md.step(t, NativeResult{Call: c.Call, Result: res})
}

func errIf(b bool) string {
	if b {
		return "native failure"
	}
	return ""
}

func (md *admissionModel) frame(t *rapid.T, id string, p wire.Payload) {
	if !md.up {
		t.Skip("no connection")
	}
	md.step(t, FrameReceived{Conn: md.gen, Frame: wire.Frame{ID: id, Payload: p}})
}

func (md *admissionModel) actions() map[string]func(*rapid.T) {
	all := md.frameActions()
	for k, f := range md.worldActions() {
		all[k] = f
	}
	return all
}

// frameActions are the frames a Core could send.
func (md *admissionModel) frameActions() map[string]func(*rapid.T) {
	reqs := []string{"p1", "p2", "p3", "p4", "p5", "p6"}
	sessions := []string{"s1", "s2", "s3", "s4", "s5", "s6", "s7"}
	runs := []string{"r1", "r2", "r3"}
	return map[string]func(*rapid.T){
		"prepare": func(t *rapid.T) {
			p := prepareFor(rapid.SampledFrom(sessions).Draw(t, "session"))
			p.Configuration.DisableSubagents = rapid.IntRange(0, 4).Draw(t, "variant") == 0
			req := rapid.SampledFrom(reqs).Draw(t, "req")
			if rapid.Bool().Draw(t, "fresh") {
				md.fresh++
				req = fmt.Sprintf("q%d", md.fresh)
			}
			md.frame(t, req, p)
		},
		"start": func(t *rapid.T) {
			req := rapid.SampledFrom(reqs).Draw(t, "req")
			if known := sortedKeys(md.byReq); len(known) > 0 && rapid.Bool().Draw(t, "known request") {
				req = rapid.SampledFrom(known).Draw(t, "known req")
			}
			s := wire.ExecutionStart{Handle: md.byReq[req], ExecutorID: "ex-1", RunID: rapid.SampledFrom(runs).Draw(t, "run"), Input: wire.TextInput("go")}
			if h := md.handles[s.Handle]; h != nil && rapid.IntRange(0, 5).Draw(t, "right executor") > 0 {
				s.ExecutorID = h.last.ExecutorID
			}
			if s.Handle == "" {
				s.Handle = "h-1"
			}
			md.frame(t, req, s)
		},
		"release": func(t *rapid.T) {
			req := rapid.SampledFrom(reqs).Draw(t, "req")
			md.frame(t, req, wire.ExecutionRelease{Handle: md.byReq[req] + ""})
		},
		"steer": func(t *rapid.T) {
			in := steer(rapid.SampledFrom([]string{"i1", "i2", "i3"}).Draw(t, "input"), rapid.SampledFrom([]string{"a", "b"}).Draw(t, "text"))
			run := rapid.SampledFrom(runs).Draw(t, "run")
			if known := sortedKeys(md.runs); len(known) > 0 && rapid.Bool().Draw(t, "known run") {
				run = rapid.SampledFrom(known).Draw(t, "known run id")
			}
			md.frame(t, run, in)
		},
		"cancel": func(t *rapid.T) {
			md.frame(t, rapid.SampledFrom(runs).Draw(t, "run"), wire.PromptCancel{DeliveryID: rapid.SampledFrom([]string{"", "d"}).Draw(t, "delivery")})
		},
	}
}

// worldActions are native results and events, time and connections.
func (md *admissionModel) worldActions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"answer":  md.answer,
		"answer2": md.answer,
		"answer3": md.answer,
		"native": func(t *rapid.T) {
			if len(md.turnRun) == 0 {
				t.Skip("no turn")
			}
			turn := TurnID(fmt.Sprintf("t-%d", rapid.IntRange(1, len(md.turnRun)).Draw(t, "turn")))
			switch rapid.IntRange(0, 2).Draw(t, "kind") {
			case 0:
				md.step(t, NativeTurnEvent{Turn: turn, Event: wire.Delta{Delta: "x"}})
			case 1:
				md.step(t, NativeTurnEvent{Turn: turn, Event: wire.Done{Content: "c"}})
			default:
				k := ioKey{turn, rapid.SampledFrom([]string{"i1", "i2", "i3"}).Draw(t, "input")}
				if !md.written[k] {
					t.Skip("nothing written to apply")
				}
				md.applied[k] = true
				md.step(t, NativeInputApplied{Turn: turn, InputID: k.input})
			}
		},
		"advance": func(t *rapid.T) {
			d := rapid.IntRange(0, 15).Draw(t, "seconds")
			if rapid.IntRange(0, 9).Draw(t, "long") == 0 {
				d = rapid.IntRange(0, 400).Draw(t, "long seconds")
			}
			md.now = md.now.Add(time.Duration(d) * time.Second)
			if rapid.Bool().Draw(t, "fire now") {
				md.fireDue(t) // otherwise timers are late, never early
			}
		},
		"fire": md.fireDue,
		"disconnect": func(t *rapid.T) {
			if !md.up || rapid.IntRange(0, 3).Draw(t, "rare") > 0 {
				t.Skip("down or not this time")
			}
			md.step(t, ConnClosed{Conn: md.gen})
			md.up = false
			md.byReq = map[string]string{}
			md.runs = map[string]TurnID{}
		},
		"connect": func(t *rapid.T) {
			if md.up && rapid.IntRange(0, 5).Draw(t, "replace") > 0 {
				t.Skip("already up")
			}
			md.gen++
			md.up = true
			md.byReq = map[string]string{}
			md.runs = map[string]TurnID{}
			md.step(t, ConnOpened{Conn: md.gen})
		},
		"": func(t *rapid.T) {
			s := md.m.Snapshot()
			l := DefaultLimits()
			require.Truef(t, s.Capacity.Active <= l.ActiveMax, "capacity exceeded: %+v", s.Capacity)
			require.Truef(t, s.Capacity.Executors <= l.ExecutorsMax, "capacity exceeded: %+v", s.Capacity)
			require.Truef(t, s.Capacity.Records <= l.AdmissionRecordsMax, "capacity exceeded: %+v", s.Capacity)
			for _, a := range s.Admissions {
				h := md.handles[a.Handle]
				require.NotNilf(t, h, "admission %s ahead of what was published", a.Handle)
				require.Truef(t, h.last.Revision <= a.Revision, "admission %s ahead of what was published", a.Handle)
			}
		},
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// rapidChecksDefault is the number of checks `go test` runs without
// -short when -rapid.checks is not given: rapid's default of 100 missed
// receipt-pipeline bugs that thousands of checks find in about a second.
const rapidChecksDefault = "5000"

func TestRapidAdmissionAndReceipts(t *testing.T) {
	if !testing.Short() && !flagSet("rapid.checks") {
		err := flag.Set("rapid.checks", rapidChecksDefault)
		require.NoErrorf(t, err, "rapid.checks: %v", err)
	}
	rapid.Check(t, func(t *rapid.T) {
		md := newAdmissionModel()
		md.gen = 1
		md.up = true
		md.step(t, ConnOpened{Conn: 1})
		t.Repeat(md.actions())
	})
}

// flagSet reports whether the named flag was given on the command line.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
