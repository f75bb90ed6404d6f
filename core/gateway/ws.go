package gateway

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/coder/websocket"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/wire"
)

// ws upgrades a Runtime connection. Check order (wire-reference §2.2):
// missing device_id, version or bearer ⇒ 400 missing_params; a credential
// in the URL ⇒ 400; version not byte-equal ⇒ 426 before any dispatch or
// registration; then authentication ⇒ 401.
func (g *Gateway) ws(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		fail(w, http.StatusMethodNotAllowed, CodeMethodNotAllowed, "the WebSocket route takes GET")
		return
	}
	q := r.URL.Query()
	device, version, cred := q.Get("device_id"), q.Get("version"), bearer(r)
	switch {
	case credentialInURL(q, cred):
		fail(w, http.StatusBadRequest, CodeMissingParams, "credentials go in the Authorization header only")
		return
	case device == "" || version == "" || cred == "":
		fail(w, http.StatusBadRequest, CodeMissingParams, "device_id, version and Authorization: Bearer are required")
		return
	case !wire.Compatible(version):
		g.log.Info("runtime version refused", "device", device, "want", wire.Version)
		fail(w, http.StatusUpgradeRequired, CodeIncompatibleVersion, "protocol version must equal "+wire.Version)
		return
	}
	if err := g.authenticate(r.Context(), device, cred); err != nil {
		g.authFail(w, r, device, err)
		return
	}
	if !isUpgrade(r) {
		fail(w, http.StatusBadRequest, CodeMissingParams,
			"the route needs a WebSocket upgrade (Connection: Upgrade, Upgrade: websocket, Sec-WebSocket-Version: 13, Sec-WebSocket-Key)")
		return
	}
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		g.log.Info("websocket accept failed", "device", device, "err", err)
		return
	}
	ws.SetReadLimit(ReadLimitBytes)
	g.live.Add(1)
	defer g.live.Done()
	g.serveConn(r.Context(), device, ws)
}

// isUpgrade reports whether r asks for a WebSocket upgrade; a plain GET
// gets the shared JSON error instead of the library's text answer.
func isUpgrade(r *http.Request) bool {
	return headerHasToken(r.Header, "Connection", "upgrade") && headerHasToken(r.Header, "Upgrade", "websocket") &&
		r.Header.Get("Sec-WebSocket-Version") == "13" && r.Header.Get("Sec-WebSocket-Key") != ""
}

func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// wsConn is the loop's handle on one WebSocket: a bounded outbound queue
// drained by a writer goroutine.
type wsConn struct {
	ws      *websocket.Conn
	clk     clock.Clock
	q       chan outFrame
	closing chan struct{}
	once    sync.Once
	code    websocket.StatusCode
	reason  string
}

// outFrame is one queued frame. A best-effort frame (core.Send.Budget)
// has the instant its budget runs out; an ordinary one has none.
type outFrame struct {
	b        []byte
	deadline time.Time
}

// Send queues a frame; false when the queue is full or the connection is
// closing. A budget above zero makes it best effort: it is written only if
// its write can start and finish within budget of now (writeOne).
func (c *wsConn) Send(b []byte, budget time.Duration) bool {
	select {
	case <-c.closing:
		return false
	default:
	}
	f := outFrame{b: b}
	if budget > 0 {
		f.deadline = c.clk.Now().Add(budget)
	}
	select {
	case c.q <- f:
		return true
	default:
		return false
	}
}

// Close asks the writer to close the connection with code and reason.
func (c *wsConn) Close(code int, reason string) {
	c.once.Do(func() {
		c.code, c.reason = websocket.StatusCode(code), reason
		close(c.closing)
	})
}

// closedByCore reports whether Core asked to close the connection (the
// machine's CloseConn, a refused message), and how it said so: a read
// that fails afterwards ends the close Core started, not one by the peer.
func (c *wsConn) closedByCore() (string, bool) {
	select {
	case <-c.closing:
		return "closed by core: " + c.code.String() + " " + c.reason, true
	default:
		return "", false
	}
}

// serveConn registers the connection, runs its writer and reads frames
// until the connection ends.
func (g *Gateway) serveConn(ctx context.Context, device string, ws *websocket.Conn) {
	c := &wsConn{ws: ws, clk: g.opt.Clock, q: make(chan outFrame, g.opt.OutboundFrames), closing: make(chan struct{})}
	id, err := g.s.Open(ctx, device, c)
	if err != nil {
		ws.Close(websocket.StatusTryAgainLater, "core is stopping")
		return
	}
	log := g.log.With("device", device, "conn", uint64(id))
	log.Info("runtime connected")
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		g.write(c, log)
	}()
	reason := g.read(ctx, id, c)
	c.Close(int(websocket.StatusNormalClosure), "")
	<-wrote
	g.s.Closed(id, reason)
	log.Info("runtime disconnected", "reason", reason)
}

// read feeds inbound frames to the loop until the connection fails.
//
// The WebSocket reads run under a context that is never cancelled: the
// library then arms no per-frame cancellation watcher (two per frame
// otherwise). The request context still ends the connection, through one
// watcher for the connection's whole life.
func (g *Gateway) read(ctx context.Context, id core.ConnID, c *wsConn) string {
	stop := context.AfterFunc(ctx, func() { c.ws.CloseNow() })
	defer stop()
	fr := frameReader{ws: c.ws}
	in := g.s.Inbound(id)
	for {
		typ, b, err := fr.next()
		if err != nil {
			if reason, ok := c.closedByCore(); ok {
				return reason
			}
			if ctx.Err() != nil {
				return "request context ended"
			}
			return readReason(err)
		}
		if typ != websocket.MessageText {
			// Frames are JSON text; a binary message is refused, never
			// decoded as a frame.
			g.s.Metrics().FrameRefused(server.RefusedBinary)
			c.Close(int(websocket.StatusUnsupportedData), "binary message: frames are JSON text")
			return "binary message refused: frames are JSON text"
		}
		if err := in.Received(ctx, b); err != nil {
			return "core is stopping"
		}
	}
}

// frameReader reads whole messages into a scratch buffer it keeps, and
// hands each out as its own exact-size copy (the decoded frame may keep
// references into it).
type frameReader struct {
	ws      *websocket.Conn
	scratch bytes.Buffer
}

// scratchKeepMax bounds the scratch buffer kept between frames; a larger
// one (an occasional big frame) is dropped after use.
const scratchKeepMax = 16 << 10

func (r *frameReader) next() (websocket.MessageType, []byte, error) {
	typ, rd, err := r.ws.Reader(context.Background())
	if err != nil {
		return typ, nil, err
	}
	r.scratch.Reset()
	if _, err := r.scratch.ReadFrom(rd); err != nil {
		return typ, nil, err
	}
	b := bytes.Clone(r.scratch.Bytes())
	if r.scratch.Cap() > scratchKeepMax {
		r.scratch = bytes.Buffer{}
	}
	return typ, b, nil
}

func readReason(err error) string {
	switch st := websocket.CloseStatus(err); {
	case st == websocket.StatusMessageTooBig, errors.Is(err, websocket.ErrMessageTooBig):
		return "inbound frame over 4 MiB"
	case st != -1:
		return "closed by peer: " + st.String()
	case errors.Is(err, context.Canceled):
		return "request context ended"
	}
	return "read failed"
}

// write drains the queue, each frame within its write budget, and closes
// the connection when asked (after the frames already queued) or when a
// write fails. A best-effort frame whose budget ran out while it waited
// is dropped instead, and the connection stays open.
func (g *Gateway) write(c *wsConn, log interface{ Info(string, ...any) }) {
	for {
		select {
		case f := <-c.q:
			if !g.writeOne(c, f, log) {
				log.Info("write failed or exceeded its budget; closing")
				c.ws.CloseNow()
				return
			}
		case <-c.closing:
			for {
				select {
				case f := <-c.q:
					if !g.writeOne(c, f, log) {
						c.ws.CloseNow()
						return
					}
					continue
				default:
				}
				break
			}
			_ = c.ws.Close(c.code, c.reason)
			return
		}
	}
}

// writeOne writes f within its budget: WriteTimeout for an ordinary
// frame; for a best-effort frame what is left of its budget (at most
// WriteTimeout). A best-effort frame with nothing left is dropped unwritten
// and reported written (true): nothing of it reached the stream, so the
// connection is intact. A write that starts and then runs out of time
// fails whichever kind the frame is, and the connection is closed: part of
// the message may already be on the stream, after which no later frame
// could be framed correctly (the WebSocket library closes the connection
// itself when a write's context expires).
func (g *Gateway) writeOne(c *wsConn, f outFrame, log interface{ Info(string, ...any) }) bool {
	budget := g.opt.WriteTimeout
	if !f.deadline.IsZero() {
		left := f.deadline.Sub(g.opt.Clock.Now())
		if left <= 0 {
			log.Info("best-effort frame dropped: its write budget ran out while it was queued", "bytes", len(f.b))
			return true
		}
		budget = min(budget, left)
	}
	ctx, cancel := g.opt.Clock.WithTimeout(context.Background(), budget)
	defer cancel()
	return c.ws.Write(ctx, websocket.MessageText, f.b) == nil
}
