package transport

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/coder/websocket"
)

// Conn is one protocol connection. Send and Close never block: frames go
// to a queue that one writer goroutine writes in order, each bounded by
// its budget measured from the moment it was queued. A write that fails
// or overruns its budget closes the connection, which its reader then
// reports.
type Conn struct {
	ws  *websocket.Conn
	clk clock.Clock

	mu      sync.Mutex
	queue   []outFrame
	closing bool
	reason  string
	wake    chan struct{} // capacity 1
	done    chan struct{} // closed when the writer stopped
}

type outFrame struct {
	b        []byte
	deadline time.Time
}

// newConn wraps ws and starts its writer.
func newConn(ws *websocket.Conn, clk clock.Clock) *Conn {
	c := &Conn{ws: ws, clk: clk, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go c.write()
	return c
}

// Send queues frame b; budget bounds its write from now (zero:
// WriteTimeout). Frames are written in the order they were queued; a Send
// after Close is dropped.
func (c *Conn) Send(b []byte, budget time.Duration) {
	if budget <= 0 {
		budget = WriteTimeout
	}
	c.mu.Lock()
	if !c.closing {
		c.queue = append(c.queue, outFrame{b: b, deadline: c.clk.Now().Add(budget)})
	}
	c.mu.Unlock()
	c.signal()
}

// Close closes the connection with a normal closure once every frame
// queued before it was written.
func (c *Conn) Close(reason string) {
	c.mu.Lock()
	if !c.closing {
		c.closing, c.reason = true, reason
	}
	c.mu.Unlock()
	c.signal()
}

// Done is closed once the writer stopped (after Close, or a failed write).
func (c *Conn) Done() <-chan struct{} { return c.done }

func (c *Conn) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *Conn) next() (outFrame, bool, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queue) > 0 {
		f := c.queue[0]
		c.queue[0] = outFrame{}
		c.queue = c.queue[1:]
		return f, true, ""
	}
	return outFrame{}, false, c.reason
}

// write is the writer goroutine.
func (c *Conn) write() {
	defer close(c.done)
	for {
		f, ok, reason := c.next()
		if !ok {
			c.mu.Lock()
			closing := c.closing
			c.mu.Unlock()
			if closing {
				_ = c.ws.Close(websocket.StatusNormalClosure, truncateReason(reason))
				return
			}
			<-c.wake
			continue
		}
		ctx, cancel := c.clk.WithDeadline(context.Background(), f.deadline)
		err := c.ws.Write(ctx, websocket.MessageText, f.b)
		cancel()
		if err != nil {
			_ = c.ws.CloseNow()
			c.mu.Lock()
			c.closing, c.queue = true, nil
			c.mu.Unlock()
			return
		}
	}
}

// read reads frames until the connection fails, handing each to fn.
func (c *Conn) read(ctx context.Context, fn func([]byte)) error {
	for {
		typ, b, err := c.ws.Read(ctx)
		if err != nil {
			return err
		}
		if typ != websocket.MessageText {
			return errBinaryFrame
		}
		fn(b)
	}
}

var errBinaryFrame = errors.New("transport: Core sent a binary frame")

// truncateReason bounds a close reason to the 123 bytes a close frame
// carries.
func truncateReason(s string) string {
	if len(s) > 123 {
		return s[:123]
	}
	return s
}
