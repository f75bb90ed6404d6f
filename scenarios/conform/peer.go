package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/turnstile-sim/turnstile/daemon/transport"
	"github.com/turnstile-sim/turnstile/daemon/transport/transporttest"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/wire"
)

// wait is how a peer waits for the side under test: in real time
// (timeout, quiet: Options'), or in a bubble (settle: Options.Settle).
type wait struct {
	log            *scenarios.Log
	timeout, quiet time.Duration
	settle         func()
}

func (w wait) after() {
	if w.settle != nil {
		w.settle()
	}
}

// forFrame is how long a frame may take to arrive once settled.
func (w wait) forFrame() time.Duration {
	if w.settle != nil {
		return 0
	}
	return w.timeout
}

// unlisted takes the frames of q once the side counts as silent.
func (w wait) unlisted(q *queue) []string {
	if w.settle != nil {
		w.settle()
	} else {
		time.Sleep(w.quiet)
	}
	var out []string
	for _, f := range q.drain() {
		out = append(out, string(f))
	}
	return out
}

// sent takes the next frame of q (in a bubble, none: the Player fails).
func (w wait) sent(q *queue, side string, f *scenarios.Frame) ([]byte, error) {
	w.after()
	if got, ok := q.pop(w.forFrame()); ok || w.settle != nil {
		return got, nil
	}
	return nil, fmt.Errorf("%s sent nothing within %v, want %s id=%s", side, w.timeout, f.Type, f.ID)
}

func (w wait) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), w.timeout)
}

// runtimePeer is the scripted Runtime on the wire to a Core under test
// (bootstrap, upgrade, keepalives), for a Core driver's wire steps.
type runtimePeer struct {
	wait
	t      CoreTarget
	conn   *coreConn
	all    []*coreConn
	hb     []byte
	nextHB time.Time
}

// coreConn is the scripted Runtime's connection.
type coreConn struct {
	ws *websocket.Conn
	q  *queue
}

func newRuntimePeer(log *scenarios.Log, t CoreTarget, o Options) *runtimePeer {
	return &runtimePeer{wait: wait{log: log, timeout: o.FrameTimeout, quiet: o.Quiet, settle: o.Settle}, t: t}
}

// client is the scripted Runtime's device client, offering version.
func (p *runtimePeer) client(version string) *transport.Client {
	return &transport.Client{CoreURL: p.t.URL, DeviceID: p.t.Device, Credential: p.t.Credential, Version: version, HTTP: p.t.HTTP}
}

func (p *runtimePeer) Connect() {
	ctx, cancel := p.ctx()
	defer cancel()
	client := p.client("")
	boot, err := client.Bootstrap(ctx)
	if err != nil {
		p.log.Failf("%v", err)
		return
	}
	ws, err := client.Dial(ctx, boot)
	if err != nil {
		p.log.Failf("dial %s: %v", boot.WSURL, err)
		return
	}
	c := &coreConn{ws: ws, q: newQueue()}
	go func() {
		for {
			_, b, err := ws.Read(context.Background())
			if err != nil {
				c.q.end(err)
				return
			}
			c.q.push(b)
		}
	}()
	p.conn, p.hb = c, nil
	p.all = append(p.all, c)
	p.after()
}

func (p *runtimePeer) Unlisted() []string {
	if p.conn == nil {
		return nil
	}
	return p.unlisted(p.conn.q)
}

func (p *runtimePeer) Sent(f *scenarios.Frame) ([]byte, error) {
	if p.conn == nil {
		return nil, fmt.Errorf("want %s id=%s, but no connection is open", f.Type, f.ID)
	}
	return p.sent(p.conn.q, "Core", f)
}

func (p *runtimePeer) Deliver(f *scenarios.Frame, raw []byte) {
	ctx, cancel := p.ctx()
	defer cancel()
	if err := p.conn.ws.Write(ctx, websocket.MessageText, raw); err != nil {
		p.log.Failf("write %s: %v", f.Type, err)
		return
	}
	if f.Type == wire.TypeHeartbeat && !f.Invalid {
		p.hb, p.nextHB = raw, time.Now().Add(scenarios.KeepaliveInterval)
	}
	p.after()
}

func (p *runtimePeer) Disconnect(byCore bool) {
	c := p.conn
	p.conn, p.hb = nil, nil
	if byCore {
		p.after()
		ended, err := c.q.waitEnd(p.forFrame())
		switch {
		case !ended:
			p.log.Failf("Core did not close the connection within %v", p.forFrame())
		case websocket.CloseStatus(err) != websocket.StatusPolicyViolation:
			p.log.Failf("Core closed the connection with %v, want policy violation (1008)", err)
		}
	}
	c.ws.CloseNow()
	p.after()
}

// Advance lets d pass, repeating the last heartbeat.
func (p *runtimePeer) Advance(d time.Duration) {
	end := time.Now().Add(d)
	for p.hb != nil && p.conn != nil && !p.nextHB.After(end) {
		time.Sleep(time.Until(p.nextHB))
		p.after()
		ctx, cancel := p.ctx()
		err := p.conn.ws.Write(ctx, websocket.MessageText, p.hb)
		cancel()
		if err != nil {
			p.log.Failf("keepalive heartbeat: %v", err)
			p.hb = nil
		}
		p.nextHB = p.nextHB.Add(scenarios.KeepaliveInterval)
	}
	time.Sleep(time.Until(end))
	p.after()
}

// RefusedUpgrade upgrades with the step's version=, which Core must
// refuse as status= and code= say; false after a failure.
func (p *runtimePeer) RefusedUpgrade(args map[string]string) (string, bool) {
	v := strings.ReplaceAll(args["version"], "$version", wire.Version)
	ctx, cancel := p.ctx()
	defer cancel()
	refused := &transport.HTTPError{Status: http.StatusSwitchingProtocols}
	ws, err := p.client(v).Dial(ctx, transport.Bootstrap{})
	switch {
	case err == nil:
		ws.CloseNow()
	case !errors.As(err, &refused):
		p.log.Failf("upgrade with version %q: %v", v, err)
		return v, false
	}
	if want := args["status"]; want != "" && strconv.Itoa(refused.Status) != want {
		p.log.Failf("version %q: status %d, want %s (%s %s)", v, refused.Status, want, refused.Code, refused.Detail)
		return v, false
	}
	if want := args["code"]; want != "" && refused.Code != want {
		p.log.Failf("version %q: error %q, want %s", v, refused.Code, want)
		return v, false
	}
	return v, true
}

// Close closes every connection.
func (p *runtimePeer) Close() {
	for _, c := range p.all {
		if p.settle != nil {
			c.ws.CloseNow()
		} else {
			c.ws.Close(websocket.StatusNormalClosure, "scenario over")
		}
	}
}

// corePeer is the scripted Core on the wire to a Runtime under test, for
// a Runtime driver's wire steps.
type corePeer struct {
	wait
	core *transporttest.Core
	sess *rtSession
	beat []byte // what the latest heartbeat step took
}

// rtSession is one connection the scripted Core accepted.
type rtSession struct {
	s             *transporttest.Session
	frames, beats *queue
}

func newCorePeer(log *scenarios.Log, core *transporttest.Core, o Options) *corePeer {
	return &corePeer{wait: wait{log: log, timeout: o.FrameTimeout, quiet: o.Quiet, settle: o.Settle}, core: core}
}

// Connect waits for the Runtime's next connection; a reconnect while one
// is open is Core replacing it.
func (p *corePeer) Connect() {
	if p.sess != nil {
		p.sess.s.Close(websocket.StatusPolicyViolation, "replaced")
	}
	ctx, cancel := p.ctx()
	defer cancel()
	s, err := p.core.Next(ctx)
	if err != nil {
		p.log.Failf("the Runtime did not connect within %v", p.timeout)
		return
	}
	c := &rtSession{s: s, frames: newQueue(), beats: newQueue()}
	go func() {
		for {
			b, err := s.RecvRaw(context.Background())
			if err != nil {
				c.frames.end(err)
				c.beats.end(err)
				return
			}
			var env struct{ Type string }
			if json.Unmarshal(b, &env) == nil && env.Type == wire.TypeHeartbeat {
				c.beats.push(b)
			} else {
				c.frames.push(b)
			}
		}
	}()
	p.sess = c
	p.after()
}

func (p *corePeer) Disconnect(byCore bool) {
	if byCore {
		p.sess.s.Close(websocket.StatusPolicyViolation, "closed by core")
	} else {
		p.sess.s.Cut()
	}
	p.sess = nil
	p.after()
}

func (p *corePeer) Unlisted() []string {
	if p.sess == nil {
		return nil
	}
	return p.unlisted(p.sess.frames)
}

func (p *corePeer) Sent(f *scenarios.Frame) ([]byte, error) {
	p.beat = nil
	if p.sess == nil {
		return nil, fmt.Errorf("want %s id=%s, but no connection is open", f.Type, f.ID)
	}
	if f.Type != wire.TypeHeartbeat {
		return p.sent(p.sess.frames, "the Runtime", f)
	}
	got, err := p.sent(p.sess.beats, "the Runtime", f)
	p.sess.beats.drain() // periodic heartbeats after the listed one are not compared
	p.beat = got
	return got, err
}

func (p *corePeer) Deliver(f *scenarios.Frame, raw []byte) {
	ctx, cancel := p.ctx()
	defer cancel()
	if err := p.sess.s.SendRaw(ctx, raw); err != nil {
		p.log.Failf("write %s: %v", f.Type, err)
	}
	p.after()
}

// queue collects the frames one connection delivers, in order.
type queue struct {
	frames chan []byte
	done   chan struct{} // closed when the connection ended
	once   sync.Once
	err    error
}

func newQueue() *queue { return &queue{frames: make(chan []byte, 1024), done: make(chan struct{})} }

func (q *queue) push(b []byte) { q.frames <- b }

// end records that the connection ended with err.
func (q *queue) end(err error) { q.once.Do(func() { q.err = err; close(q.done) }) }

// ended reports whether the connection ended, and how.
func (q *queue) ended() (bool, error) {
	select {
	case <-q.done:
		return true, q.err
	default:
		return false, nil
	}
}

// pop returns the next frame, waiting up to wait for one.
func (q *queue) pop(wait time.Duration) ([]byte, bool) {
	select {
	case b := <-q.frames:
		return b, true
	default:
	}
	if ended, _ := q.ended(); ended || wait <= 0 {
		return nil, false
	}
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	select {
	case b := <-q.frames:
		return b, true
	case <-q.done:
		return q.pop(0)
	case <-deadline.C:
		return nil, false
	}
}

// drain returns every frame queued now.
func (q *queue) drain() (out [][]byte) {
	for {
		select {
		case b := <-q.frames:
			out = append(out, b)
		default:
			return out
		}
	}
}

// waitEnd waits up to wait for the connection to end.
func (q *queue) waitEnd(wait time.Duration) (bool, error) {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	select {
	case <-q.done:
	case <-deadline.C:
	}
	return q.ended()
}
