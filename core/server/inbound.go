package server

import (
	"context"
	"errors"
	"sync"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// InboundFramesMax bounds the decoded frames one connection may have
// waiting for the loop; its reader blocks beyond it (backpressure, as the
// inbox gives).
const InboundFramesMax = 64

// Inbound is one connection's queue of decoded frames for the loop. Its
// reader appends to it without a loop item per frame: the first frame into
// an empty queue schedules one drain, and every frame that arrives before
// the drain runs joins it, so a loop behind its readers steps them all in
// one item (and one commit). The connection's frames reach the machine in
// the order they were read. An Inbound is used by one reader goroutine.
type Inbound struct {
	s  *Server
	id core.ConnID

	mu        sync.Mutex
	frames    []inboundFrame // waiting for the loop
	scheduled bool           // a drain is queued or running
	spare     []inboundFrame // the drained slice, reused (loop-owned)
	space     chan struct{}  // signalled after a drain
	drainItem item
}

type inboundFrame struct {
	ev  core.Event
	typ string
	hb  *wire.Heartbeat // a valid heartbeat, noted for the device list
}

// Inbound returns the frame queue of connection id (from Open).
func (s *Server) Inbound(id core.ConnID) *Inbound {
	q := &Inbound{s: s, id: id, space: make(chan struct{}, 1)}
	q.drainItem = q.drain
	return q
}

// Received decodes a frame read on the connection, on the caller's
// goroutine, and queues it for the loop. It blocks while InboundFramesMax
// frames wait, and fails once ctx ends or the loop stopped.
func (q *Inbound) Received(ctx context.Context, frame []byte) error {
	fr := decodeInbound(q.id, frame)
	for {
		q.mu.Lock()
		if len(q.frames) < InboundFramesMax {
			q.frames = append(q.frames, fr)
			schedule := !q.scheduled
			q.scheduled = true
			q.mu.Unlock()
			if schedule {
				return q.s.submit(ctx, q.drainItem)
			}
			return nil
		}
		q.mu.Unlock()
		select {
		case <-q.space:
		case <-ctx.Done():
			return ctx.Err()
		case <-q.s.stop:
			return ErrStopped
		}
	}
}

// drain steps every queued frame; it runs on the loop.
func (q *Inbound) drain() func() {
	q.mu.Lock()
	frames := q.frames
	q.frames, q.spare = q.spare[:0], nil
	q.scheduled = false
	q.mu.Unlock()
	select {
	case q.space <- struct{}{}:
	default:
	}
	for _, fr := range frames {
		q.s.stepInbound(q.id, fr)
	}
	clear(frames)
	q.mu.Lock()
	q.spare = frames[:0]
	q.mu.Unlock()
	return nil
}

func decodeInbound(id core.ConnID, frame []byte) inboundFrame {
	f, err := wire.Decode(frame)
	if err != nil {
		typ := ""
		var de *wire.DecodeError
		if errors.As(err, &de) {
			typ = de.Type
		}
		return inboundFrame{ev: core.FrameRejected{Conn: id, Type: typ, Err: err}, typ: typ}
	}
	fr := inboundFrame{ev: core.FrameReceived{Conn: id, Frame: f}, typ: f.Type()}
	if hb, ok := f.Payload.(wire.Heartbeat); ok {
		fr.hb = &hb
	}
	return fr
}

// coreSends are the frame types only Core sends: one arriving from a
// Runtime is in the wrong direction, and the machine drops it.
var coreSends = map[string]bool{
	wire.TypeRuntimePrepare: true, wire.TypeExecutionPrepare: true, wire.TypeExecutionStart: true,
	wire.TypeExecutionRelease: true, wire.TypePromptCancel: true, wire.TypeDeviceShutdown: true,
	wire.TypePermissionDecision: true, wire.TypeUserChoiceDecision: true, wire.TypePromptSteer: true,
	wire.TypeFunctionResult: true, wire.TypeWorkspaceRead: true, wire.TypeWorkspaceWrite: true,
	wire.TypeWorkspaceExport: true, wire.TypeEnvironmentQuiesce: true, wire.TypeEnvironmentResume: true,
}

// errTextMax bounds the decode error quoted in a log line.
const errTextMax = 200

// stepInbound steps one decoded frame on the loop. A frame the codec
// refused (malformed, unknown type, invalid payload) or one of a type
// only Core sends gets a warning line besides its metric: the machine
// drops it.
func (s *Server) stepInbound(id core.ConnID, fr inboundFrame) {
	s.opt.Metrics.frameIn(fr.typ)
	switch e := fr.ev.(type) {
	case core.FrameRejected:
		msg := e.Err.Error()
		if len(msg) > errTextMax {
			msg = msg[:errTextMax] + "…"
		}
		s.log.Warn("runtime frame refused", "conn", uint64(id), "device", s.deviceOf(id), "type", e.Type, "err", msg)
		s.opt.Metrics.FrameRefused(refusalReason(e.Err))
	case core.FrameReceived:
		if coreSends[fr.typ] {
			s.log.Warn("runtime frame in the wrong direction dropped", "conn", uint64(id), "device", s.deviceOf(id),
				"type", fr.typ, "id", e.Frame.ID)
			s.opt.Metrics.FrameRefused(RefusedWrongDirection)
		}
	}
	if fr.hb != nil {
		s.noteHeartbeat(id, *fr.hb)
	}
	if f, ok := fr.ev.(core.FrameReceived); s.tracing != nil && ok {
		if span := s.tracing.received(id, s.deviceOf(id), f.Frame); span != nil {
			defer span.End()
		}
	}
	s.step(fr.ev)
}

// deviceOf is the device of a live connection, or "".
func (s *Server) deviceOf(id core.ConnID) string {
	if c := s.conns[id]; c != nil {
		return c.device
	}
	return ""
}
