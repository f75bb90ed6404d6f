package server

import (
	"context"
	"strconv"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/engine"
)

// Request is one public API call for the machine.
type Request struct {
	// Event builds the API event with the call ID the server minted.
	Event func(core.CallID) core.Event
	// EventAt, when set, replaces Event: it builds the event on the loop
	// from the committed state v shows, so a caller that decides which
	// event to send from that state needs no Query before. A nil event
	// runs nothing: the Reply is Skipped.
	EventAt func(v View, call core.CallID) core.Event
	// IdempotencyKey, when set, makes the call durable-idempotent: the
	// answer Answer renders is stored in the same commit as the call's
	// writes, and a later call with the same key gets it back without
	// reaching the machine.
	IdempotencyKey string
	Answer         func(core.APIResult) []byte
}

// Reply is a call's outcome. Replayed: Stored is the answer of an earlier
// call with the same key and Result is empty. Skipped: EventAt built no
// event, nothing ran and Result is empty.
type Reply struct {
	Result   core.APIResult
	Stored   []byte
	Replayed bool
	Skipped  bool
}

func (s *Server) mintCall(prefix string) core.CallID {
	return core.CallID(prefix + "-" + strconv.FormatUint(s.nextCall.Add(1), 10))
}

// Call runs req on the loop and waits for its committed answer.
func (s *Server) Call(ctx context.Context, req Request) (Reply, error) {
	call := s.mintCall("api")
	ch := make(chan core.APIResult, 1)
	var rep Reply
	done := make(chan struct{})
	err := s.submit(ctx, func() func() {
		if k := req.IdempotencyKey; k != "" {
			if a, ok := s.idempotent(k); ok {
				rep = Reply{Stored: a, Replayed: true}
				return func() { close(done) }
			}
		}
		var ev core.Event
		if req.EventAt != nil {
			ev = req.EventAt(View{s}, call)
		} else {
			ev = req.Event(call)
		}
		if ev == nil {
			rep.Skipped = true
			return func() { close(done) }
		}
		s.calls[call] = ch
		for _, e := range s.step(ev) {
			if r, ok := e.(core.APIResult); ok && r.Call == call && req.IdempotencyKey != "" && req.Answer != nil {
				rep.Stored = req.Answer(r)
				s.putIdempotent(req.IdempotencyKey, rep.Stored)
			}
		}
		return func() { close(done) }
	})
	if err != nil {
		return Reply{}, err
	}
	select {
	case <-done:
	case <-s.stop:
		return Reply{}, ErrStopped
	}
	if rep.Replayed || rep.Skipped {
		return rep, nil
	}
	select {
	case rep.Result = <-ch:
	case <-s.stop:
		return Reply{}, ErrStopped
	}
	if rep.Result.Err == ErrStopped {
		return Reply{}, ErrStopped
	}
	return rep, nil
}

func (s *Server) idempotent(key string) ([]byte, bool) {
	if a, ok := s.idem[key]; ok {
		return a, true
	}
	return s.back.Idempotent(key)
}

func (s *Server) putIdempotent(key string, answer []byte) {
	if s.idem == nil {
		s.idem = map[string][]byte{}
	}
	s.idem[key] = answer
	s.back.PutIdempotent(key, answer)
}

// View is read access to the loop's state, valid only inside Query's
// function.
type View struct{ s *Server }

// Machine returns the machine (read-only introspection methods only).
func (v View) Machine() *core.Machine { return v.s.m }

// Backend returns the durable backend; writes made through it are
// committed with the batch, before Query returns.
func (v View) Backend() Backend { return v.s.back }

// Heartbeat returns the last valid heartbeat seen on a live connection.
func (v View) Heartbeat(c core.ConnID) *HeartbeatInfo {
	if cs := v.s.conns[c]; cs != nil {
		return cs.heartbeat
	}
	return nil
}

// Retire closes the live connection of device with code 4001 (revoked).
func (v View) Retire(device string) {
	for id, c := range v.s.conns {
		if c.device == device {
			v.s.retire(id, c)
		}
	}
}

// Query runs fn on the loop and returns after the batch it ran in has
// committed.
func (s *Server) Query(ctx context.Context, fn func(View)) error {
	done := make(chan struct{})
	err := s.submit(ctx, func() func() {
		fn(View{s})
		return func() { close(done) }
	})
	if err != nil {
		return err
	}
	select {
	case <-done:
		return nil
	case <-s.stop:
		return ErrStopped
	}
}

// Policy is the engine qualification Core was started with (immutable:
// the Harness kinds it enables cannot change while it runs).
func (s *Server) Policy() engine.Policy {
	if s.opt.Config.Policy != nil {
		return *s.opt.Config.Policy
	}
	return engine.Policy{}
}
