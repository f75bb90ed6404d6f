package server

import (
	"context"

	"github.com/turnstile-sim/turnstile/core"
)

// Stream is a call whose answer arrives in pieces before its result: a
// streamed workspace export (core.ExportWorkspace with Stream). Chunks
// delivers each core.ExportChunk's data in order; the machine hands out
// the next chunk only after Taken, so Chunks never holds more than one.
// Result delivers the call's one APIResult; it may arrive while a chunk
// is still unread (the export ended early), never before a chunk the
// result depends on.
type Stream struct {
	Call   core.CallID
	Chunks <-chan []byte
	Result <-chan core.APIResult
	s      *Server
}

// StreamCall runs an event whose answer is streamed (see Stream).
func (s *Server) StreamCall(ctx context.Context, ev func(core.CallID) core.Event) (*Stream, error) {
	call := s.mintCall("api")
	res := make(chan core.APIResult, 1)
	chunks := make(chan []byte, 1)
	err := s.submit(ctx, func() func() {
		s.calls[call] = res
		if s.streams == nil {
			s.streams = map[core.CallID]chan<- []byte{}
		}
		s.streams[call] = chunks
		s.step(ev(call))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Stream{Call: call, Chunks: chunks, Result: res, s: s}, nil
}

// Taken reports the last chunk consumed (abandon: no more can be taken;
// the machine ends the call).
func (st *Stream) Taken(ctx context.Context, abandon bool) error {
	return st.s.submit(ctx, func() func() {
		st.s.step(core.ExportChunkTaken{Call: st.Call, Abandon: abandon})
		return nil
	})
}

// chunk passes one chunk to its stream; it never blocks.
func (s *Server) chunk(e core.ExportChunk) {
	ch := s.streams[e.Call]
	if ch == nil {
		return
	}
	select {
	case ch <- e.Data:
	default:
		panic("server: a streamed call was handed a chunk before it took the previous one")
	}
}
