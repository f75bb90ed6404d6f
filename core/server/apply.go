package server

import (
	"context"

	"github.com/benbjohnson/clock"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/internal/wiretrace"
	"github.com/turnstile-sim/turnstile/wire"
)

// apply carries out one effect; it never blocks.
func (s *Server) apply(e core.Effect) {
	switch e := e.(type) {
	case core.Send:
		s.send(e)
	case core.CloseConn:
		if c := s.conns[e.Conn]; c != nil {
			c.conn.Close(ClosePolicy, closeReason(e.Reason))
			delete(s.conns, e.Conn)
		}
	case core.SetTimer:
		s.setTimer(e)
	case core.CancelTimer:
		if t := s.timers[e.Timer]; t != nil {
			t.Stop()
			delete(s.timers, e.Timer)
		}
	case core.APIResult:
		if ch := s.calls[e.Call]; ch != nil {
			ch <- e // buffered 1: never blocks
			delete(s.calls, e.Call)
		}
		delete(s.streams, e.Call)
	case core.ExportChunk:
		s.chunk(e)
	case core.Observation:
		s.observe(e)
	}
}

func (s *Server) send(e core.Send) {
	c := s.conns[e.Conn]
	if c == nil {
		return // closed since: Core never replays an uncertain frame
	}
	f := e.Frame
	if s.opt.PrepareFrame != nil {
		var err error
		if f, err = s.opt.PrepareFrame(f); err != nil {
			s.log.Error("core frame not prepared", "conn", uint64(e.Conn), "type", e.Frame.Type(), "err", err)
			c.conn.Close(CloseTryAgain, reasonEncodeFail)
			delete(s.conns, e.Conn)
			s.pending = append(s.pending, core.ConnClosed{Conn: e.Conn, Reason: reasonEncodeFail})
			return
		}
	}
	f, span := s.tracing.sending(e.Conn, c.device, f)
	if span != nil {
		defer span.End()
	}
	b, err := wiretrace.Encode(f, e.Frame.Trace)
	if err != nil {
		failSpan(span, reasonEncodeFail)
		s.log.Error("core frame does not encode", "conn", uint64(e.Conn), "type", e.Frame.Type(), "err", err)
		c.conn.Close(CloseTryAgain, reasonEncodeFail)
		delete(s.conns, e.Conn)
		s.pending = append(s.pending, core.ConnClosed{Conn: e.Conn, Reason: reasonEncodeFail})
		return
	}
	if !c.conn.Send(b, e.Budget) {
		// Overflow closes only this connection; the machine sees it lost.
		failSpan(span, reasonOverflow)
		c.conn.Close(CloseTryAgain, reasonOverflow)
		delete(s.conns, e.Conn)
		s.pending = append(s.pending, core.ConnClosed{Conn: e.Conn, Reason: reasonOverflow})
		s.opt.Metrics.overflow()
		return
	}
	s.opt.Metrics.frameOut(e.Frame.Type())
}

// closeReason keeps a close reason within the 123 bytes a close frame has.
func closeReason(r string) string {
	if len(r) > 120 {
		return r[:120]
	}
	return r
}

func (s *Server) setTimer(e core.SetTimer) {
	if t := s.timers[e.Timer]; t != nil {
		t.Stop()
	}
	id := e.Timer
	var t *clock.Timer
	t = s.clk.AfterFunc(s.clk.Until(e.At), func() {
		// A timer fired after a replacement or stop is ignored by the
		// machine; the map entry is dropped only for this very timer.
		_ = s.submit(context.Background(), func() func() {
			if s.timers[id] == t {
				delete(s.timers, id)
			}
			s.step(core.TimerFired{Timer: id})
			return nil
		})
	})
	s.timers[id] = t
}

func (s *Server) observe(o core.Observation) {
	sub := s.subs[o.Subscriber]
	if sub == nil {
		return
	}
	if o.Closed {
		sub.finish(o.Err)
		delete(s.subs, o.Subscriber)
		return
	}
	if !sub.push(o) {
		s.pending = append(s.pending, core.SubscriberOverflow{Subscriber: o.Subscriber})
	}
}

// Open registers a Runtime connection of device (credential and version
// already checked) and returns its ConnID. IDs are minted here, in the
// order Open is called, so they increase per device in accept order.
func (s *Server) Open(ctx context.Context, device string, c Conn) (core.ConnID, error) {
	id := core.ConnID(s.nextConn.Add(1))
	err := s.submit(ctx, func() func() {
		cs := &connState{device: device, conn: c}
		s.conns[id] = cs
		s.step(core.ConnOpened{Device: device, Conn: id})
		// A revocation committed between the gateway's credential check
		// and this turn of the loop closes the connection now, not at the
		// next revocation poll.
		if d, ok, err := s.back.Device(device); err == nil && ok && d.Revoked {
			s.retire(id, cs)
		}
		return nil
	})
	return id, err
}

// Received reports a frame read on conn; it decodes the frame on the
// caller's goroutine (the connection's reader). A reader that reports
// many frames uses the connection's Inbound instead.
func (s *Server) Received(ctx context.Context, id core.ConnID, frame []byte) error {
	fr := decodeInbound(id, frame)
	return s.submit(ctx, func() func() {
		s.stepInbound(id, fr)
		return nil
	})
}

func (s *Server) noteHeartbeat(id core.ConnID, hb wire.Heartbeat) {
	if c := s.conns[id]; c != nil {
		c.heartbeat = &HeartbeatInfo{At: s.clk.Now(), TS: hb.TS, DaemonVersion: hb.DaemonVersion,
			Active: hb.ActiveRequests, Kinds: hb.SupportedAgentKinds}
	}
}

// Closed reports that a connection ended (its reader stopped).
func (s *Server) Closed(id core.ConnID, reason string) {
	_ = s.submit(context.Background(), func() func() {
		delete(s.conns, id)
		s.step(core.ConnClosed{Conn: id, Reason: reason})
		return nil
	})
}
