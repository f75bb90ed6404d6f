package server

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/internal/wiretrace"
	"github.com/turnstile-sim/turnstile/wire"
)

// tracing follows the machine from the outside: it opens a span per
// Turn (SubmitTurn answered → terminal state), per preparation
// (execution_prepare sent → its first settled preparation_status) and per
// frame sent or received, and stamps outgoing frames with the W3C
// traceparent of their send span. It lives on the loop goroutine; a nil
// *tracing does nothing and allocates nothing.
type tracing struct {
	tr    trace.Tracer
	turns map[string]*turnSpan // open Turn spans by Turn ID
	queue map[string][]string  // a Session's open Turns, in submission order
	preps map[string]*prepSpan // open preparation spans by request ID
}

type turnSpan struct {
	span        trace.Span
	ctx         context.Context
	id, session string
}

type prepSpan struct {
	span trace.Span
	ctx  context.Context
	conn core.ConnID
}

func newTracing(tr trace.Tracer) *tracing {
	if tr == nil {
		return nil
	}
	return &tracing{tr: tr, turns: map[string]*turnSpan{}, queue: map[string][]string{}, preps: map[string]*prepSpan{}}
}

// stepped opens the Turn span of a SubmitTurn the machine accepted.
func (t *tracing) stepped(ev core.Event, effs []core.Effect) {
	if t == nil {
		return
	}
	sub, ok := ev.(core.SubmitTurn)
	if !ok {
		return
	}
	for _, e := range effs {
		r, ok := e.(core.APIResult)
		if !ok || r.Call != sub.Call {
			continue
		}
		v, ok := r.Value.(core.TurnSubmitted)
		if !ok || v.Turn == "" {
			continue
		}
		ctx, span := t.tr.Start(context.Background(), wiretrace.SpanTurn, trace.WithNewRoot(),
			trace.WithAttributes(wiretrace.AttrTurn.String(v.Turn), wiretrace.AttrSession.String(sub.Session)))
		t.turns[v.Turn] = &turnSpan{span: span, ctx: ctx, id: v.Turn, session: sub.Session}
		t.queue[sub.Session] = append(t.queue[sub.Session], v.Turn)
	}
}

// settle ends the spans of the Turns that reached a terminal state.
func (t *tracing) settle(back Backend) {
	if t == nil || len(t.turns) == 0 {
		return
	}
	for id, ts := range t.turns {
		rec, ok := back.Turn(id)
		if !ok || !rec.State.Terminal() {
			continue
		}
		ts.span.SetAttributes(wiretrace.AttrState.String(string(rec.State)))
		if rec.ErrorCode != "" {
			ts.span.SetAttributes(wiretrace.AttrErrorCode.String(rec.ErrorCode))
		}
		if rec.State == core.TurnFailed {
			ts.span.SetStatus(codes.Error, rec.ErrorCode)
		}
		ts.span.End()
		t.forget(id, ts.session)
	}
}

func (t *tracing) forget(turn, session string) {
	delete(t.turns, turn)
	q := t.queue[session]
	for i, id := range q {
		if id == turn {
			q = append(q[:i:i], q[i+1:]...)
			break
		}
	}
	if len(q) == 0 {
		delete(t.queue, session)
	} else {
		t.queue[session] = q
	}
}

// turnOf returns the open Turn span a frame belongs to, if any: by the
// Run ID it names (a Turn ID, or `<turn>.<attempt>` for a retry), or by
// its Session for an execution_prepare (the Session's oldest open Turn).
func (t *tracing) turnOf(f wire.Frame) *turnSpan {
	run := f.ID
	switch p := f.Payload.(type) {
	case wire.ExecutionPrepare:
		if q := t.queue[p.SessionID]; len(q) > 0 {
			return t.turns[q[0]]
		}
		return nil
	case wire.ExecutionStart:
		run = p.RunID
	case wire.PreparationStatus:
		run = p.RunID
	}
	if run == "" {
		return nil
	}
	if ts := t.turns[run]; ts != nil {
		return ts
	}
	if i := strings.LastIndexByte(run, '.'); i > 0 {
		return t.turns[run[:i]]
	}
	return nil
}

// parentOf is the context a span about frame f starts in: its open
// preparation's, else its Turn's, else none.
func (t *tracing) parentOf(f wire.Frame) (context.Context, bool) {
	if p := t.preps[f.ID]; p != nil && f.ID != "" {
		return p.ctx, true
	}
	if ts := t.turnOf(f); ts != nil {
		return ts.ctx, true
	}
	return nil, false
}

// sending opens the send span of f (and, for an execution_prepare, its
// preparation span) and returns f stamped with the send span's
// traceparent when the machine left its trace empty. The caller ends the
// span once the frame is queued (or refused).
func (t *tracing) sending(conn core.ConnID, device string, f wire.Frame) (wire.Frame, trace.Span) {
	if t == nil {
		return f, nil
	}
	typ := f.Type()
	if typ == wire.TypeHeartbeat {
		return f, nil
	}
	parent, ok := t.parentOf(f)
	if p, isPrep := f.Payload.(wire.ExecutionPrepare); isPrep && t.preps[f.ID] == nil {
		base := context.Background()
		opts := []trace.SpanStartOption{trace.WithAttributes(wiretrace.AttrPreparation.String(f.ID),
			wiretrace.AttrSession.String(p.SessionID), wiretrace.AttrAgentKind.String(p.Configuration.AgentKind),
			wiretrace.AttrConn.Int64(int64(conn)), wiretrace.AttrDevice.String(device))}
		if ts := t.turnOf(f); ts != nil {
			base = ts.ctx
			opts = append(opts, trace.WithAttributes(wiretrace.AttrTurn.String(ts.id)))
		} else {
			opts = append(opts, trace.WithNewRoot())
		}
		ctx, span := t.tr.Start(base, wiretrace.SpanPreparation, opts...)
		t.preps[f.ID] = &prepSpan{span: span, ctx: ctx, conn: conn}
		parent, ok = ctx, true
	}
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindProducer),
		trace.WithAttributes(wiretrace.AttrFrameType.String(typ), wiretrace.AttrFrameID.String(f.ID),
			wiretrace.AttrConn.Int64(int64(conn)), wiretrace.AttrDevice.String(device))}
	if !ok {
		parent = context.Background()
		opts = append(opts, trace.WithNewRoot())
	}
	_, span := t.tr.Start(parent, wiretrace.SpanSendPrefix+typ, opts...)
	if f.Trace == "" {
		f.Trace = wiretrace.Format(span.SpanContext())
	}
	return f, span
}

// received opens the receive span of a decoded frame: a child of the
// frame's traceparent when it carries a valid one, otherwise a new root
// linked to the frame's Turn or preparation. A missing or unusable trace
// is never an error. The caller ends the span after the step.
func (t *tracing) received(conn core.ConnID, device string, f wire.Frame) trace.Span {
	if t == nil {
		return nil
	}
	typ := f.Type()
	if typ == wire.TypeHeartbeat && f.Trace == "" {
		return nil
	}
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(wiretrace.AttrFrameType.String(typ), wiretrace.AttrFrameID.String(f.ID),
			wiretrace.AttrConn.Int64(int64(conn)), wiretrace.AttrDevice.String(device))}
	parent := context.Background()
	if sc, ok := wiretrace.Parse(f.Trace); ok {
		parent = trace.ContextWithRemoteSpanContext(parent, sc)
	} else {
		opts = append(opts, trace.WithNewRoot())
		if local, ok := t.parentOf(f); ok {
			opts = append(opts, trace.WithLinks(trace.LinkFromContext(local)))
		}
	}
	_, span := t.tr.Start(parent, wiretrace.SpanRecvPrefix+typ, opts...)
	if st, ok := f.Payload.(wire.PreparationStatus); ok {
		t.preparationStatus(f.ID, st)
	}
	return span
}

// preparationStatus ends a preparation span at its first settled status.
func (t *tracing) preparationStatus(reqID string, st wire.PreparationStatus) {
	p := t.preps[reqID]
	if p == nil || st.State == wire.StatePreparing {
		return
	}
	p.span.SetAttributes(wiretrace.AttrState.String(st.State))
	if st.ErrorCode != "" {
		p.span.SetAttributes(wiretrace.AttrErrorCode.String(st.ErrorCode))
	}
	if st.State == wire.StateFailed || st.State == wire.StateRejected || st.State == wire.StateExpired {
		p.span.SetStatus(codes.Error, st.ErrorCode)
	}
	p.span.End()
	delete(t.preps, reqID)
}

// closed ends the preparation spans of a connection that ended (the
// reason, which may quote the peer, is not recorded).
func (t *tracing) closed(conn core.ConnID, _ string) {
	if t == nil {
		return
	}
	for id, p := range t.preps {
		if p.conn == conn {
			p.span.SetStatus(codes.Error, "connection closed")
			p.span.End()
			delete(t.preps, id)
		}
	}
}

// stopped ends every open span as Core stops.
func (t *tracing) stopped() {
	if t == nil {
		return
	}
	for id, p := range t.preps {
		p.span.SetStatus(codes.Error, "core stopped")
		p.span.End()
		delete(t.preps, id)
	}
	for id, ts := range t.turns {
		ts.span.SetAttributes(wiretrace.AttrState.String("open at stop"))
		ts.span.End()
		delete(t.turns, id)
	}
	clear(t.queue)
}

// failSpan marks a send span whose frame never left (a fixed reason: an
// error's text could quote the frame).
func failSpan(span trace.Span, reason string) {
	if span != nil {
		span.SetStatus(codes.Error, reason)
	}
}
