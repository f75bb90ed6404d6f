package runner

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/turnstile-sim/turnstile/internal/wiretrace"
	"github.com/turnstile-sim/turnstile/wire"
)

// tracing follows the machine from the loop: a receive span per frame
// from Core (a child of the frame's traceparent, a new root without a
// valid one), a preparation span from execution_prepare to its first
// settled preparation_status, a Turn span from execution_start to the
// Run's done or error, and a send span per frame to Core whose context
// the frame carries in its trace field. So the daemon's spans of a Turn
// are children of Core's. Loop goroutine only; a nil *tracing does
// nothing and allocates nothing.
type tracing struct {
	tr    trace.Tracer
	runs  map[string]*openSpan // daemon Turn spans by Run ID
	preps map[string]*openSpan // preparation spans by request ID
}

type openSpan struct {
	span trace.Span
	ctx  context.Context
	gen  uint64
	// A Run whose cancel asked for a receipt stays open until that
	// receipt is sent: state and code keep the done or error sent before.
	cancel      bool
	state, code string
}

func newTracing(tr trace.Tracer) *tracing {
	if tr == nil {
		return nil
	}
	return &tracing{tr: tr, runs: map[string]*openSpan{}, preps: map[string]*openSpan{}}
}

// received opens the receive span of a frame from Core and, for
// execution_prepare and execution_start, the preparation or Turn span
// under it. The caller ends the returned span after the machine's step.
func (t *tracing) received(gen uint64, f wire.Frame) trace.Span {
	if t == nil {
		return nil
	}
	typ := f.Type()
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(wiretrace.AttrFrameType.String(typ), wiretrace.AttrFrameID.String(f.ID), wiretrace.AttrConnGen.Int64(int64(gen)))}
	parent := context.Background()
	if sc, ok := wiretrace.Parse(f.Trace); ok {
		parent = trace.ContextWithRemoteSpanContext(parent, sc)
	} else {
		opts = append(opts, trace.WithNewRoot())
		if local := t.parentOf(f); local != nil {
			opts = append(opts, trace.WithLinks(trace.LinkFromContext(local.ctx)))
		}
	}
	ctx, span := t.tr.Start(parent, wiretrace.SpanRecvPrefix+typ, opts...)
	switch p := f.Payload.(type) {
	case wire.ExecutionPrepare:
		if f.ID != "" && t.preps[f.ID] == nil {
			pctx, ps := t.tr.Start(ctx, wiretrace.SpanPreparation, trace.WithAttributes(wiretrace.AttrPreparation.String(f.ID),
				wiretrace.AttrSession.String(p.SessionID), wiretrace.AttrAgentKind.String(p.Configuration.AgentKind), wiretrace.AttrConnGen.Int64(int64(gen))))
			t.preps[f.ID] = &openSpan{span: ps, ctx: pctx, gen: gen}
		}
	case wire.PromptCancel:
		if r := t.runs[f.ID]; r != nil && p.DeliveryID != "" {
			r.cancel = true
		}
	case wire.ExecutionStart:
		if p.RunID != "" && t.runs[p.RunID] == nil {
			rctx, rs := t.tr.Start(ctx, wiretrace.SpanTurn, trace.WithAttributes(wiretrace.AttrRun.String(p.RunID),
				wiretrace.AttrTurn.String(turnOfRun(p.RunID)), wiretrace.AttrPreparation.String(f.ID), wiretrace.AttrConnGen.Int64(int64(gen))))
			t.runs[p.RunID] = &openSpan{span: rs, ctx: rctx, gen: gen}
		}
	}
	return span
}

// turnOfRun is the Turn ID of a Run ID (`<turn>` or `<turn>.<attempt>`).
func turnOfRun(run string) string {
	if i := strings.LastIndexByte(run, '.'); i > 0 {
		return run[:i]
	}
	return run
}

// parentOf is the open span a frame belongs to: its Run's Turn span
// (Envelope.id or a payload's run_id), else its preparation's.
func (t *tracing) parentOf(f wire.Frame) *openSpan {
	run := f.ID
	switch p := f.Payload.(type) {
	case wire.ExecutionStart:
		run = p.RunID
	case wire.PreparationStatus:
		run = p.RunID
	}
	if r := t.runs[run]; r != nil && run != "" {
		return r
	}
	if p := t.preps[f.ID]; p != nil && f.ID != "" {
		return p
	}
	return nil
}

// sending opens the send span of a frame to Core and returns the frame
// stamped with its traceparent (when the machine left trace empty).
// Heartbeats are not traced. The caller calls sent after queueing.
func (t *tracing) sending(gen uint64, f wire.Frame) (wire.Frame, trace.Span) {
	if t == nil || f.Type() == wire.TypeHeartbeat {
		return f, nil
	}
	typ := f.Type()
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindProducer),
		trace.WithAttributes(wiretrace.AttrFrameType.String(typ), wiretrace.AttrFrameID.String(f.ID), wiretrace.AttrConnGen.Int64(int64(gen)))}
	parent := context.Background()
	if p := t.parentOf(f); p != nil {
		parent = p.ctx
	} else {
		opts = append(opts, trace.WithNewRoot())
	}
	_, span := t.tr.Start(parent, wiretrace.SpanSendPrefix+typ, opts...)
	if f.Trace == "" {
		f.Trace = wiretrace.Format(span.SpanContext())
	}
	return f, span
}

// sent ends a send span and the preparation or Turn span the frame
// settles: a preparation at its first status other than preparing, a
// Turn at its Run's done or error, or, once a cancel asked for a receipt,
// at that receipt.
func (t *tracing) sent(f wire.Frame, span trace.Span) {
	if span == nil {
		return
	}
	span.End()
	switch p := f.Payload.(type) {
	case wire.PreparationStatus:
		ps := t.preps[f.ID]
		if ps == nil || p.State == wire.StatePreparing {
			return
		}
		ps.span.SetAttributes(wiretrace.AttrState.String(p.State))
		if p.ErrorCode != "" {
			ps.span.SetAttributes(wiretrace.AttrErrorCode.String(p.ErrorCode))
		}
		if p.State == wire.StateFailed || p.State == wire.StateRejected || p.State == wire.StateExpired {
			ps.span.SetStatus(codes.Error, p.ErrorCode)
		}
		ps.span.End()
		delete(t.preps, f.ID)
	case wire.Done:
		t.endRun(f.ID, "done", "")
	case wire.RunError:
		t.endRun(f.ID, "error", p.Code)
	case wire.InteractionDecisionAck:
		r := t.runs[f.ID]
		if r == nil || !r.cancel {
			return
		}
		r.cancel = false
		switch {
		case p.Applied && p.Outcome != nil:
			t.endRun(f.ID, "cancelled", "")
		case r.state != "":
			t.endRun(f.ID, r.state, r.code) // the Run had ended; the cancel came too late
		}
	}
}

// endRun ends a Run's Turn span with the state its last frame gave,
// unless a cancel receipt is still to be sent (it ends the span then).
func (t *tracing) endRun(run, state, code string) {
	r := t.runs[run]
	if r == nil {
		return
	}
	if r.cancel {
		r.state, r.code = state, code
		return
	}
	r.span.SetAttributes(wiretrace.AttrState.String(state))
	if code != "" {
		r.span.SetAttributes(wiretrace.AttrErrorCode.String(code))
	}
	if state == "error" {
		r.span.SetStatus(codes.Error, code)
	}
	r.span.End()
	delete(t.runs, run)
}

// disconnected ends the spans of connection gen: its Runs and
// preparations end with it.
func (t *tracing) disconnected(gen uint64) {
	if t == nil {
		return
	}
	for _, m := range []map[string]*openSpan{t.runs, t.preps} {
		for id, s := range m {
			if s.gen == gen {
				s.span.SetStatus(codes.Error, "connection lost")
				s.span.End()
				delete(m, id)
			}
		}
	}
}

// stopped ends every open span as the loop stops.
func (t *tracing) stopped() {
	if t == nil {
		return
	}
	for _, m := range []map[string]*openSpan{t.runs, t.preps} {
		for id, s := range m {
			s.span.SetStatus(codes.Error, "daemon stopped")
			s.span.End()
			delete(m, id)
		}
	}
}
