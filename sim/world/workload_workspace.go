package world

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/sim/harness"
)

// Waits of the workload's workspace calls: Core's own bound (17 s for a
// read, 195 s for a write) plus the API latency.
const (
	workspaceReadCallTimeout   = core.WorkspaceReadWait + 5*time.Second
	workspaceWriteCallTimeout  = core.WorkspaceWriteWait + 5*time.Second
	workspaceExportCallTimeout = core.WorkspaceExportWait + 5*time.Second
)

// workspaceDirectory is the directory the simulated workspaces hold
// (harness.WorkspaceFiles has dir/c.txt).
const workspaceDirectory = "dir"

// successorSuffix marks the value of a write the workload makes after an
// unknown answer (one successor each).
const successorSuffix = "-next"

// workspaceOpsMax bounds the workspace operations planned per Session.
const workspaceOpsMax = 5

// planWorkspace draws a few workspace operations on each Session with an
// Environment: writes of fresh values, byte reads and listings of the
// small set of names the simulated workspaces hold, and exports, at
// random instants.
func (wl *workload) planWorkspace(now time.Time) {
	for _, s := range wl.sessions {
		if s.agent.Environment == core.EnvNone {
			continue
		}
		n := wl.r.IntN(workspaceOpsMax + 1)
		for range n {
			at := time.Duration(200+wl.r.IntN(30000)) * time.Millisecond
			kind, path := wl.r.IntN(7), harness.WorkspaceFiles[wl.r.IntN(len(harness.WorkspaceFiles))]
			if wl.r.IntN(10) == 0 && kind < 3 {
				path = workspaceDirectory // a write there is refused by the installer
			}
			value := "v-" + strconv.Itoa(wl.r.IntN(1_000_000))
			wl.after(now, at, func(now time.Time) { wl.workspaceOp(now, s, kind, path, value) })
		}
		wl.u.planStreamedExports(now, s)
	}
}

func (wl *workload) workspaceOp(now time.Time, s *wSession, kind int, path, value string) {
	if s.id == "" {
		return // the Session was refused or not created (yet): nothing to operate on
	}
	switch {
	case kind < 3:
		wl.workspaceWrite(now, s, path, value)
	case kind < 5:
		wl.workspaceRead(now, s, path)
	case kind < 6:
		wl.workspaceList(now, s)
	default:
		wl.workspaceExport(now, s)
	}
}

func (wl *workload) workspaceWrite(now time.Time, s *wSession, path, value string) {
	op := check.WorkspaceWriteOp{Call: wl.u.lt(now), Session: s.id, Env: s.agent.EnvironmentID, Path: path, Value: value,
		Overlapping: s.writesOut > 0}
	s.writesOut++
	done := func(now time.Time, outcome, code, mutation string) {
		s.writesOut--
		if outcome == core.WorkspaceUnknown || outcome == "lost" {
			s.unsettled = true
		}
		if outcome == core.WorkspaceUnknown && !strings.HasSuffix(value, successorSuffix) {
			// a successor while the unknown write is unsettled: Core must
			// refuse it (workspace_write_settlement)
			wl.successors++
			wl.after(now, time.Duration(100+wl.r.IntN(1900))*time.Millisecond, func(now time.Time) {
				wl.successors--
				wl.workspaceWrite(now, s, path, value+successorSuffix)
			})
		}
		op.Return, op.Outcome, op.Code, op.Mutation = wl.u.lt(now), outcome, code, mutation
		wl.u.led.WorkspaceWriteCalled(op)
	}
	wl.callWithin(now, workspaceWriteCallTimeout, core.WriteWorkspace{Session: s.id, Path: path, Data: []byte(value)},
		func(now time.Time, r core.APIResult) {
			ws, _ := r.Value.(*core.WorkspaceResult)
			if ws == nil {
				code := ""
				if errors.Is(r.Err, core.ErrWorkspaceMutationPending) {
					code = check.WriteRefusedPending
				}
				done(now, "refused", code, "")
				return
			}
			done(now, ws.Outcome, ws.Code, ws.Mutation)
		}, func(now time.Time) { done(now, "lost", "", "") })
}

func (wl *workload) workspaceRead(now time.Time, s *wSession, path string) {
	if s.writesOut > 0 || s.unsettled {
		wl.u.led.WorkspaceReadWhileUnsettled()
	}
	limit := 64
	if r := wl.readLimits(); r.IntN(2) == 0 {
		limit = 1 + r.IntN(6) // below every value written: the answer is truncated
	}
	op := check.WorkspaceReadOp{Call: wl.u.lt(now), Session: s.id, Env: s.agent.EnvironmentID, Path: path, MaxBytes: limit}
	wl.callWithin(now, workspaceReadCallTimeout, core.ReadWorkspace{Session: s.id, Path: path, MaxBytes: limit},
		func(now time.Time, r core.APIResult) {
			op.Return = wl.u.lt(now)
			if ws, _ := r.Value.(*core.WorkspaceResult); ws == nil {
				op.Outcome = "refused"
			} else {
				op.Outcome, op.Code = ws.Outcome, ws.Code
				op.Value, op.Truncated = string(ws.Data), ws.Truncated
			}
			wl.u.led.WorkspaceReadCalled(op)
		}, func(now time.Time) {
			op.Return, op.Outcome = wl.u.lt(now), "lost"
			wl.u.led.WorkspaceReadCalled(op)
		})
}

// readLimits is the stream of byte reads' max_bytes, apart from the
// workspace draws so that they are unchanged.
func (wl *workload) readLimits() *rand.Rand {
	if wl.readLimitR == nil {
		wl.readLimitR = wl.u.w.Rand("workload:read-limit")
	}
	return wl.readLimitR
}

func (wl *workload) workspaceList(now time.Time, s *wSession) {
	entries := 1 + wl.r.IntN(3)
	wl.callWithin(now, workspaceReadCallTimeout, core.ReadWorkspace{Session: s.id, Directory: true, MaxEntries: entries},
		func(now time.Time, r core.APIResult) {
			if ws, _ := r.Value.(*core.WorkspaceResult); ws != nil && ws.Outcome == core.WorkspaceCompleted {
				wl.u.led.WorkspaceListed(ws.EntriesTruncated)
			}
		}, func(time.Time) {})
}

func (wl *workload) workspaceExport(now time.Time, s *wSession) {
	stream := wl.r.IntN(2) == 0 // half the exports are streamed to the caller chunk by chunk
	wl.exportCall(now, s, stream)
	wl.pairExport(now, s)
}

// pairExport: in a third of the exports another Session with an
// Environment exports in the same instant, so that two exports may want
// one connection (Core keeps one in flight per connection, wire
// reference §6.1: the second goes to another device or is refused
// ErrWorkspaceConnBusy). Its draws come from a stream of their own.
func (wl *workload) pairExport(now time.Time, s *wSession) {
	if wl.exportPairR == nil {
		wl.exportPairR = wl.u.w.Rand("workload:export-pair")
	}
	r := wl.exportPairR
	if r.IntN(3) != 0 {
		return
	}
	var others []*wSession
	for _, o := range wl.sessions {
		if o != s && o.id != "" && o.agent.Environment != core.EnvNone {
			others = append(others, o)
		}
	}
	if len(others) == 0 {
		return
	}
	wl.exportCall(now, others[r.IntN(len(others))], r.IntN(2) == 0)
}

func (wl *workload) exportCall(now time.Time, s *wSession, stream bool) {
	op := check.WorkspaceExportOp{Call: wl.u.lt(now), Session: s.id, Env: s.agent.EnvironmentID}
	wl.callWithin(now, workspaceExportCallTimeout, core.ExportWorkspace{Session: s.id, Stream: stream},
		func(now time.Time, r core.APIResult) {
			op.Return = wl.u.lt(now)
			if ws, _ := r.Value.(*core.WorkspaceResult); ws == nil {
				op.Outcome = "refused"
				if errors.Is(r.Err, core.ErrWorkspaceConnBusy) {
					op.Code = check.ExportRefusedConnBusy
				}
			} else {
				op.Outcome, op.Code, op.Archive = ws.Outcome, ws.Code, ws.Archive
			}
			wl.u.led.WorkspaceExportCalled(op)
		}, func(now time.Time) {
			op.Return, op.Outcome = wl.u.lt(now), "lost"
			wl.u.led.WorkspaceExportCalled(op)
		})
}

// workspaceEnvironment names Environment i of kind k: a canonical UUID,
// as workspace_write carries it.
func workspaceEnvironment(k, i int) string {
	return "00000000-0000-4000-8000-" + pad12(strconv.Itoa(k*1000+i+1))
}

func pad12(s string) string {
	for len(s) < 12 {
		s = "0" + s
	}
	return s
}
