package acp

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

// lineBytesMax bounds one JSON-RPC line from the agent (a loaded session's
// replay can be large).
const lineBytesMax = 64 << 20

// errConnClosed reports a request whose answer can no longer come: the
// agent's stdout ended or the connection broke.
var errConnClosed = errors.New("acp: agent connection closed")

// conn is the JSON-RPC connection over the agent's stdin and stdout. One
// goroutine (readLoop) reads every line in order: answers resolve their
// call (running its hook first, still in order); notifications and agent
// requests go to handle.
type conn struct {
	wmu sync.Mutex
	w   io.Writer

	mu      sync.Mutex
	nextID  int64
	pending map[int64]*call
	closed  bool
	broken  error // the first malformed line

	handle func(rpcMessage)
	onEnd  func(error) // after the read loop ended (nil: stdout ended cleanly)
	done   chan struct{}
}

// call is one request awaiting its answer.
type call struct {
	hook   func(result json.RawMessage, err error)
	result json.RawMessage
	err    error
	done   chan struct{}
}

func newConn(w io.Writer, handle func(rpcMessage), onEnd func(error)) *conn {
	return &conn{w: w, pending: map[int64]*call{}, handle: handle, onEnd: onEnd, done: make(chan struct{})}
}

func (c *conn) write(m rpcMessage) error {
	m.JSONRPC = "2.0"
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
		return nil, fmt.Errorf("acp: write %s: %w", method, err)
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
			return fmt.Errorf("%w: undecodable answer: %v", ErrMalformed, err)
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

// notify writes one notification.
func (c *conn) notify(method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.write(rpcMessage{Method: method, Params: raw})
}

// reply answers one agent request.
func (c *conn) reply(id json.RawMessage, result any) error {
	raw, err := json.Marshal(result)
	if err != nil {
		return err
	}
	return c.write(rpcMessage{ID: id, Result: raw})
}

func (c *conn) replyError(id json.RawMessage, code int, msg string) error {
	return c.write(rpcMessage{ID: id, Error: &rpcError{Code: code, Message: msg}})
}

// readLoop reads stdout to its end. A malformed line breaks the
// connection: every pending call fails, nothing later is handled, and the
// rest of stdout is drained.
func (c *conn) readLoop(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), lineBytesMax)
	var broken error
	for broken == nil && sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		m, err := parseLine(sc.Bytes())
		if err != nil {
			broken = err
			break
		}
		if m.Method != "" {
			c.handle(m)
			continue
		}
		c.answer(m)
	}
	if broken == nil && sc.Err() != nil {
		broken = fmt.Errorf("%w: %v", ErrMalformed, sc.Err())
	}
	c.mu.Lock()
	c.closed, c.broken = true, broken
	pending := c.pending
	c.pending = map[int64]*call{}
	c.mu.Unlock()
	for _, id := range sortedIDs(pending) {
		cl := pending[id]
		cl.err = errConnClosed
		if broken != nil {
			cl.err = broken
		}
		if cl.hook != nil {
			cl.hook(nil, cl.err)
		}
		close(cl.done)
	}
	c.onEnd(broken)
	_, _ = io.Copy(io.Discard, r)
	close(c.done)
}

// answer resolves the call an answer names; an answer to no request is
// dropped.
func (c *conn) answer(m rpcMessage) {
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

func sortedIDs(m map[int64]*call) []int64 {
	ids := make([]int64, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	for i := 1; i < len(ids); i++ {
		for j := i; j > 0 && ids[j] < ids[j-1]; j-- {
			ids[j], ids[j-1] = ids[j-1], ids[j]
		}
	}
	return ids
}
