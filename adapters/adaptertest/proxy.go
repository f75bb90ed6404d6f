package adaptertest

import (
	"context"
	"errors"
	"io"
	"maps"
	"net/http"
	"slices"
	"sync"

	"github.com/coder/websocket"

	"github.com/turnstile-sim/turnstile/wire"
)

// relay sits on the network between the daemon and Core: it accepts the
// daemon's WebSocket upgrade, dials Core's with the same query and
// credential, and copies frames both ways, showing each frame to tap
// before it forwards it. It never changes a frame. Cut drops every live
// connection without a close handshake (a network fault).
type relay struct {
	core *pipeNet // the network Core listens on
	tap  func(tapEvent)

	mu    sync.Mutex
	next  uint64
	links map[uint64]*link
	wg    sync.WaitGroup
}

// tapEvent is one observation of the relay.
type tapEvent struct {
	conn   uint64
	kind   string // "open", "daemon", "core", "close"
	raw    []byte
	reason string
}

type link struct {
	daemon, core *websocket.Conn
}

func newRelay(core *pipeNet, tap func(tapEvent)) *relay {
	return &relay{core: core, tap: tap, links: map[uint64]*link{}}
}

func (p *relay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	target := "ws://core.adaptertest" + r.URL.RequestURI()
	h := http.Header{}
	h.Set("Authorization", r.Header.Get("Authorization"))
	up, resp, err := websocket.Dial(r.Context(), target, &websocket.DialOptions{HTTPClient: p.core.client(), HTTPHeader: h})
	if err != nil {
		refuse(w, resp)
		return
	}
	down, err := websocket.Accept(w, r, nil)
	if err != nil {
		_ = up.CloseNow()
		return
	}
	up.SetReadLimit(wire.FrameBytesMax + 1)
	down.SetReadLimit(wire.FrameBytesMax + 1)
	p.mu.Lock()
	p.next++
	id := p.next
	l := &link{daemon: down, core: up}
	p.links[id] = l
	p.mu.Unlock()
	p.tap(tapEvent{conn: id, kind: "open"})
	p.wg.Add(2)
	go p.pump(id, down, up, "daemon")
	go p.pump(id, up, down, "core")
}

// refuse answers the upgrade as Core answered it (a refused dial when
// Core is down: 503, which the daemon retries).
func refuse(w http.ResponseWriter, resp *http.Response) {
	if resp == nil {
		http.Error(w, `{"error":"unavailable","detail":"core is not listening"}`, http.StatusServiceUnavailable)
		return
	}
	defer resp.Body.Close()
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, io.LimitReader(resp.Body, 4<<10))
}

// pump copies from src to dst; from says who wrote the frames.
func (p *relay) pump(id uint64, src, dst *websocket.Conn, from string) {
	defer p.wg.Done()
	for {
		typ, b, err := src.Read(context.Background())
		if err != nil {
			p.closeBoth(id, src, dst, err)
			return
		}
		p.tap(tapEvent{conn: id, kind: from, raw: b})
		if err := dst.Write(context.Background(), typ, b); err != nil {
			p.closeBoth(id, src, dst, err)
			return
		}
	}
}

// closeBoth ends a link once: a close handshake is passed on with its
// code and reason, anything else drops the other side.
func (p *relay) closeBoth(id uint64, src, dst *websocket.Conn, err error) {
	p.mu.Lock()
	_, live := p.links[id]
	delete(p.links, id)
	p.mu.Unlock()
	if !live {
		return
	}
	var ce websocket.CloseError
	reason := err.Error()
	if errors.As(err, &ce) {
		reason = ce.Reason
		_ = dst.Close(ce.Code, ce.Reason)
	} else {
		_ = dst.CloseNow()
	}
	_ = src.CloseNow()
	p.tap(tapEvent{conn: id, kind: "close", reason: reason})
}

// cut drops every live connection, as a network failure would.
func (p *relay) cut() {
	p.mu.Lock()
	links := make([]*link, 0, len(p.links))
	for _, id := range slices.Sorted(maps.Keys(p.links)) {
		links = append(links, p.links[id])
	}
	p.mu.Unlock()
	for _, l := range links {
		_ = l.daemon.CloseNow()
		_ = l.core.CloseNow()
	}
}

// wait returns once every pump ended (after the connections closed).
func (p *relay) wait() { p.wg.Wait() }
