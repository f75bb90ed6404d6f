package codex

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// lineBytesMax bounds one JSON-RPC line from app-server (a resumed
// thread's history can be large).
const lineBytesMax = 64 << 20

// errConnClosed reports a request whose answer can no longer come: the
// app-server's stdout ended.
var errConnClosed = errors.New("codex: app-server connection closed")

// conn is the JSON-RPC connection over app-server's stdin and stdout. One
// goroutine (readLoop) reads every line in order: answers resolve their
// call (running its hook first, still in order), notifications and server
// requests go to handle.
type conn struct {
	wmu sync.Mutex
	w   io.Writer

	mu      sync.Mutex
	nextID  int64
	pending map[int64]*call
	closed  bool

	handle func(rpcMessage)
	done   chan struct{}
}

// call is one request awaiting its answer.
type call struct {
	hook   func(result json.RawMessage, err error)
	result json.RawMessage
	err    error
	done   chan struct{}
}

func newConn(w io.Writer, handle func(rpcMessage)) *conn {
	return &conn{w: w, pending: make(map[int64]*call), handle: handle, done: make(chan struct{})}
}

func (c *conn) write(m any) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.w.Write(b)
	return err
}

// send writes one request and returns once the write completed; hook (if
// any) runs on the read loop when the answer arrives, before any later
// line is handled, with the answer's error (an *rpcError, or
// errConnClosed when no answer can come).
func (c *conn) send(method string, params any, hook func(json.RawMessage, error)) (*call, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errConnClosed
	}
	c.nextID++
	id := c.nextID
	cl := &call{hook: hook, done: make(chan struct{})}
	c.pending[id] = cl
	c.mu.Unlock()
	raw, err := json.Marshal(params)
	if err == nil {
		err = c.write(rpcMessage{ID: json.RawMessage(strconv.FormatInt(id, 10)), Method: method, Params: raw})
	}
	if err != nil {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return nil, fmt.Errorf("codex: write %s: %w", method, err)
	}
	return cl, nil
}

// wait waits for the answer of cl and decodes it into out (when not nil).
func (cl *call) wait(ctx context.Context, out any) error {
	select {
	case <-cl.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if cl.err != nil {
		return cl.err
	}
	if out != nil {
		if err := json.Unmarshal(cl.result, out); err != nil {
			return fmt.Errorf("codex: decode answer: %w", err)
		}
	}
	return nil
}

// call sends a request and waits for its answer.
func (c *conn) call(ctx context.Context, method string, params, out any) error {
	cl, err := c.send(method, params, nil)
	if err != nil {
		return err
	}
	return cl.wait(ctx, out)
}

func (c *conn) notify(method string, params any) error {
	var raw json.RawMessage
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return err
		}
		raw = b
	}
	return c.write(rpcMessage{Method: method, Params: raw})
}

// reply answers a server request.
func (c *conn) reply(id json.RawMessage, result any) error {
	b, err := json.Marshal(result)
	if err != nil {
		return err
	}
	return c.write(rpcMessage{ID: id, Result: b})
}

func (c *conn) replyError(id json.RawMessage, code int, msg string) error {
	return c.write(rpcMessage{ID: id, Error: &rpcError{Code: code, Message: msg}})
}

// readLoop reads r until EOF; then every pending call fails with
// errConnClosed and done closes.
func (c *conn) readLoop(r io.Reader) {
	defer close(c.done)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		if len(line) > 0 {
			c.dispatch(line)
		}
		if err != nil {
			break
		}
	}
	c.mu.Lock()
	c.closed = true
	pending := c.pending
	c.pending = nil
	c.mu.Unlock()
	for _, cl := range pending {
		cl.err = errConnClosed
		if cl.hook != nil {
			cl.hook(nil, errConnClosed)
		}
		close(cl.done)
	}
}

// readLine reads one line; a line longer than lineBytesMax ends the loop.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > lineBytesMax {
			return nil, errors.New("codex: app-server line too long")
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

func (c *conn) dispatch(line []byte) {
	var m rpcMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return // not JSON-RPC: ignored
	}
	if m.Method != "" {
		c.handle(m)
		return
	}
	id, err := strconv.ParseInt(string(m.ID), 10, 64)
	if err != nil {
		return
	}
	c.mu.Lock()
	cl := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if cl == nil {
		return
	}
	if m.Error != nil {
		cl.err = m.Error
	} else {
		cl.result = m.Result
	}
	if cl.hook != nil {
		cl.hook(cl.result, cl.err)
	}
	close(cl.done)
}
