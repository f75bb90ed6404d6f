package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/turnstile-sim/turnstile/scenarios"
)

// front is the scripted Core's HTTP handler: the current scenario's Core
// routes and the control channel.
type front struct {
	mu   sync.Mutex
	core http.Handler
	hub  *controlHub
}

func (f *front) setCore(h http.Handler) { f.mu.Lock(); f.core = h; f.mu.Unlock() }

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == scenarios.ControlPath {
		f.hub.accept(w, r)
		return
	}
	f.mu.Lock()
	h := f.core
	f.mu.Unlock()
	if h == nil {
		http.Error(w, `{"error":"internal","detail":"no scenario is running"}`, http.StatusServiceUnavailable)
		return
	}
	h.ServeHTTP(w, r)
}

// controlHub holds the Runtime's control channel: the latest one opened.
type controlHub struct {
	mu      sync.Mutex
	conn    *controlConn
	arrived chan struct{}
}

func newControlHub() *controlHub { return &controlHub{arrived: make(chan struct{}, 1)} }

type controlConn struct {
	at      time.Time // when it opened
	ws      *websocket.Conn
	replies chan scenarios.ControlReply
	done    chan struct{}
	seq     int
}

func (h *controlHub) accept(w http.ResponseWriter, r *http.Request) {
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	c := &controlConn{at: time.Now(), ws: ws, replies: make(chan scenarios.ControlReply, 16), done: make(chan struct{})}
	h.mu.Lock()
	old := h.conn
	h.conn = c
	h.mu.Unlock()
	if old != nil {
		go old.ws.Close(websocket.StatusNormalClosure, "replaced") // a gone peer must not stall this accept
	}
	select {
	case h.arrived <- struct{}{}:
	default:
	}
	go func() {
		defer close(c.done)
		for {
			_, b, err := ws.Read(context.Background())
			if err != nil {
				return
			}
			var rep scenarios.ControlReply
			if json.Unmarshal(b, &rep) == nil {
				c.replies <- rep
			}
		}
	}()
}

// wait returns the open control channel opened since then (in a bubble,
// at the same instant), waiting up to d for one: a channel opened earlier
// belongs to a Runtime process of an earlier scenario.
func (h *controlHub) wait(d time.Duration, since time.Time) *controlConn {
	deadline := time.After(d)
	for {
		h.mu.Lock()
		c := h.conn
		h.mu.Unlock()
		if c != nil && !c.closed() && !c.at.Before(since) {
			return c
		}
		select {
		case <-h.arrived:
		case <-deadline:
			return nil
		}
	}
}

// drop closes the current channel (the scenario's Runtime is stopping).
func (h *controlHub) drop() {
	h.mu.Lock()
	c := h.conn
	h.conn = nil
	h.mu.Unlock()
	if c != nil {
		go c.ws.Close(websocket.StatusNormalClosure, "scenario over")
	}
}

func (c *controlConn) closed() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// do sends one command and waits up to d for its answer.
func (c *controlConn) do(cmd scenarios.ControlCommand, d time.Duration) (scenarios.ControlReply, error) {
	c.seq++
	cmd.Seq = c.seq
	b, _ := json.Marshal(cmd)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := c.ws.Write(ctx, websocket.MessageText, b); err != nil {
		return scenarios.ControlReply{}, fmt.Errorf("control channel: %w", err)
	}
	for {
		select {
		case rep := <-c.replies:
			if rep.Seq == cmd.Seq {
				return rep, nil
			}
		case <-c.done:
			return scenarios.ControlReply{}, fmt.Errorf("control channel closed before answering %s", cmd.Action)
		case <-ctx.Done():
			return scenarios.ControlReply{}, fmt.Errorf("no answer to %s on the control channel within %v", cmd.Action, d)
		}
	}
}
