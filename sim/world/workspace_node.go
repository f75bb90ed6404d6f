package world

import (
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
)

// caller is who made an API call that Core answers in a later step.
type caller struct {
	from sim.NodeID
	call sim.CallID
}

// workspaceCall turns a workspace request into its Core event and
// remembers the caller: Core answers reads and writes once the Runtime
// did (or did not), steps later. It returns nil for other requests.
func (n *coreNode) workspaceCall(call core.CallID, e sim.CallReceived) core.Event {
	req, _ := e.Req.(apiRequest)
	var ev core.Event
	var timer string
	switch x := req.ev.(type) {
	case core.ReadWorkspace:
		x.Call, timer = call, check.TimerWorkspaceRead
		ev = x
	case core.WriteWorkspace:
		x.Call, timer = call, check.TimerWorkspaceWrite
		ev = x
	case core.ExportWorkspace:
		x.Call, timer = call, check.TimerWorkspaceExport
		ev = x
	default:
		return nil
	}
	n.callers[call] = caller{from: e.From, call: e.Call}
	n.u.led.CoreWorkspaceCall(n.u.lt(n.u.w.Now()), string(call), timer)
	return ev
}

// reply addresses an API answer: a remembered caller's at once, any
// other one by the call that is being handled (api sets it).
func (n *coreNode) reply(r core.APIResult) sim.Reply {
	r = n.streamedArchive(r)
	if c, ok := n.callers[r.Call]; ok {
		delete(n.callers, r.Call)
		code := ""
		if ws, ok := r.Value.(*core.WorkspaceResult); ok {
			code = ws.Code
		}
		n.u.led.CoreWorkspaceAnswered(n.u.lt(n.u.w.Now()), string(r.Call), code)
		return sim.Reply{To: c.from, Call: c.call, Res: apiResult{r}}
	}
	return sim.Reply{Res: apiResult{r}}
}

func (r ledgerRecorder) WorkspaceSeeded(env, name, value string, present bool) {
	r.u.led.WorkspaceSeeded(env, name, value, present)
}

func (r ledgerRecorder) WorkspaceOpened(at int64, device, reader, session, env string) {
	r.u.led.WorkspaceOpened(at, device, reader, session, env)
}

func (r ledgerRecorder) WorkspaceClosed(at int64, device, reader string, ok bool) {
	r.u.led.WorkspaceClosed(at, device, reader, ok)
}

func (r ledgerRecorder) WorkspaceInstallAnswered(at int64, device, mutation, outcome, reason string) {
	r.u.led.WorkspaceInstallAnswered(at, device, mutation, outcome, reason)
}

func (r ledgerRecorder) WorkspaceCloseCalled(at int64, device, reader string) {
	r.u.led.WorkspaceCloseCalled(at, device, reader)
}

func (r ledgerRecorder) WorkspaceRead(at int64, device, reader, session, env, name, value string, present bool) {
	r.u.led.WorkspaceRead(at, device, reader, session, env, name, value, present)
}

func (r ledgerRecorder) WorkspaceReadOutOfBounds(at int64, device string) {
	r.u.led.WorkspaceReadOutOfBounds(at, device)
}

func (r ledgerRecorder) WorkspaceInstalled(at int64, device, mutation, env, name, value string, digestOK bool) {
	r.u.led.WorkspaceInstalled(at, device, mutation, env, name, value, digestOK)
}

func (r ledgerRecorder) WorkspaceExported(at int64, device, reader, env string, archive []byte, files map[string]string) {
	r.u.led.WorkspaceExported(at, device, reader, env, archive, files)
}

// A streamed export (core.ExportWorkspace with Stream): the Core node,
// as Core's shell, takes each chunk Core hands out, keeps it for the
// caller and tells Core it was taken 1–5 ms later (a client reading the
// stream), so the next chunk is pulled only then. The completed answer
// carries the chunks taken, for the export checks.
const exportTakenPrefix = "xtaken/"

func (n *coreNode) exportChunk(now time.Time, e core.ExportChunk) sim.Effect {
	if n.streamed == nil {
		n.streamed = map[core.CallID][]byte{}
	}
	n.streamed[e.Call] = append(n.streamed[e.Call], e.Data...)
	d := time.Duration(1+n.u.w.Rand("export-client").IntN(5)) * time.Millisecond
	if n.u.abandonsExport(e.Offset == 0) {
		return sim.SetTimer{Timer: sim.TimerID(exportAbandonPrefix + string(e.Call)), At: now.Add(d)}
	}
	return sim.SetTimer{Timer: sim.TimerID(exportTakenPrefix + string(e.Call)), At: now.Add(d)}
}

func (n *coreNode) streamedArchive(r core.APIResult) core.APIResult {
	parts, ok := n.streamed[r.Call]
	if !ok {
		return r
	}
	delete(n.streamed, r.Call)
	if ws, ok := r.Value.(*core.WorkspaceResult); ok && ws.Outcome == core.WorkspaceCompleted {
		cp := *ws
		cp.Archive = parts
		r.Value = &cp
	}
	return r
}
