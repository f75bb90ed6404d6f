package transporttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/coder/websocket"

	"github.com/turnstile-sim/turnstile/wire"
)

// URL is the scripted Core's base URL on its Network.
const URL = "http://core.test"

// Core is the scripted Core. Set its fields before Start.
type Core struct {
	// DeviceID and Credential are the one device Core knows.
	DeviceID   string
	Credential string
	// HeartbeatSeconds is the bootstrap's heartbeat_seconds (0: 15).
	HeartbeatSeconds int
	// Version is the protocol version Core speaks ("": wire.Version).
	Version string
	// Refuse, when set, may refuse an upgrade attempt (1-based) with an
	// HTTP status and error code before any other check.
	Refuse func(attempt int) (status int, code string)
	// RefuseBootstrap, when set, may refuse a bootstrap request (1-based)
	// with an HTTP status before any other check.
	RefuseBootstrap func(attempt int) int
	// RefuseCode is the error code of RefuseBootstrap's refusals
	// (default "internal").
	RefuseCode string

	net   *Network
	srv   *http.Server
	mu    sync.Mutex
	dials int
	urls  []string
	boots int
	auths []string
	conns chan *Session
	live  []*Session
}

// Start serves Core on a fresh Network and returns it.
func (c *Core) Start() *Network {
	c.net = NewNetwork()
	c.srv = &http.Server{Handler: c.Handler()}
	go func() { _ = c.srv.Serve(c.net) }()
	return c.net
}

// Handler returns Core's routes, to serve on a real listener (for
// example httptest.NewServer) instead of Start's Network.
func (c *Core) Handler() http.Handler {
	c.conns = make(chan *Session, 16)
	mux := http.NewServeMux()
	mux.HandleFunc("/api/v1/agent-daemon/bootstrap", c.bootstrap)
	mux.HandleFunc("/api/v1/agent-daemon/ws", c.upgrade)
	return mux
}

// Close stops the server (when Start ran) and every connection Core
// accepted.
func (c *Core) Close() {
	if c.srv != nil {
		_ = c.srv.Close()
		_ = c.net.Close()
	}
	c.mu.Lock()
	live := c.live
	c.live = nil
	c.mu.Unlock()
	for _, s := range live {
		s.unblock()
		_ = s.ws.CloseNow()
		<-s.done
	}
}

// Dials returns how many upgrade attempts reached Core.
func (c *Core) Dials() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dials
}

// Bootstraps returns how many bootstrap requests reached Core.
func (c *Core) Bootstraps() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.boots
}

// RequestURLs returns the URL of every request Core saw, in order.
func (c *Core) RequestURLs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.urls...)
}

// Authorizations returns the Authorization header of every request.
func (c *Core) Authorizations() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.auths...)
}

func (c *Core) version() string {
	if c.Version == "" {
		return wire.Version
	}
	return c.Version
}

func writeError(w http.ResponseWriter, status int, code, detail string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "detail": detail})
}

func (c *Core) record(r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.urls = append(c.urls, r.URL.String())
	c.auths = append(c.auths, r.Header.Get("Authorization"))
}

func (c *Core) authorized(r *http.Request) bool {
	v, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && strings.TrimSpace(v) == c.Credential
}

func (c *Core) bootstrap(w http.ResponseWriter, r *http.Request) {
	c.record(r)
	c.mu.Lock()
	c.boots++
	attempt := c.boots
	c.mu.Unlock()
	if c.RefuseBootstrap != nil {
		if status := c.RefuseBootstrap(attempt); status != 0 {
			code := c.RefuseCode
			if code == "" {
				code = "internal"
			}
			writeError(w, status, code, "refused by the script")
			return
		}
	}
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "POST only")
		return
	}
	var body struct {
		DeviceID string `json:"device_id"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, "bad_json", "body is not JSON")
		return
	}
	if body.DeviceID == "" {
		writeError(w, http.StatusBadRequest, "missing_device_id", "device_id is required")
		return
	}
	if !c.authorized(r) || body.DeviceID != c.DeviceID {
		writeError(w, http.StatusUnauthorized, "bad_credential", "credential rejected")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"device_id": c.DeviceID, "workspace_id": "ws-test", "ws_url": "ws://" + r.Host + "/api/v1/agent-daemon/ws",
		"heartbeat_seconds": c.HeartbeatSeconds, "protocol_version": c.version(),
	})
}

func (c *Core) upgrade(w http.ResponseWriter, r *http.Request) {
	c.record(r)
	c.mu.Lock()
	c.dials++
	attempt := c.dials
	c.mu.Unlock()
	if c.Refuse != nil {
		if status, code := c.Refuse(attempt); status != 0 {
			writeError(w, status, code, "refused by the script")
			return
		}
	}
	q := r.URL.Query()
	switch {
	case q.Get("device_id") == "" || q.Get("version") == "" || r.Header.Get("Authorization") == "":
		writeError(w, http.StatusBadRequest, "missing_params", "device_id, version and bearer are required")
		return
	case q.Get("version") != c.version():
		writeError(w, http.StatusUpgradeRequired, "incompatible_version", "Core speaks "+c.version())
		return
	case !c.authorized(r) || q.Get("device_id") != c.DeviceID:
		writeError(w, http.StatusUnauthorized, "bad_credential", "credential rejected")
		return
	}
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	ws.SetReadLimit(wire.FrameBytesMax)
	s := newSession(ws, r.URL)
	c.mu.Lock()
	c.live = append(c.live, s)
	c.mu.Unlock()
	c.conns <- s
}

// Next waits for the next accepted connection.
func (c *Core) Next(ctx context.Context) (*Session, error) {
	select {
	case s := <-c.conns:
		return s, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("no connection: %w", ctx.Err())
	}
}

// Session is one accepted daemon connection.
type Session struct {
	URL      *url.URL
	ws       *websocket.Conn
	in       chan []byte
	done     chan struct{}
	err      error // written before done closes
	paused   chan struct{}
	pause    sync.Once
	released chan struct{}
	release  sync.Once
}

func newSession(ws *websocket.Conn, u *url.URL) *Session {
	s := &Session{URL: u, ws: ws, in: make(chan []byte, 1024), done: make(chan struct{}),
		paused: make(chan struct{}), released: make(chan struct{})}
	go s.read()
	return s
}

// StopReading makes Core stop reading the connection after the frame it
// is waiting for (a stalled peer): the daemon's later writes block until
// their budget closes the connection.
func (s *Session) StopReading() { s.pause.Do(func() { close(s.paused) }) }

func (s *Session) unblock() { s.release.Do(func() { close(s.released) }) }

func (s *Session) read() {
	defer close(s.done)
	for {
		_, b, err := s.ws.Read(context.Background())
		if err != nil {
			s.err = err
			return
		}
		s.in <- b
		select {
		case <-s.paused:
			<-s.released // stalled: nothing more is read
			s.err = ErrClosed
			return
		default:
		}
	}
}

// ErrClosed reports a session whose connection ended; Err says how.
var ErrClosed = errors.New("transporttest: connection closed")

// Recv returns the next frame the daemon sent.
func (s *Session) Recv(ctx context.Context) (wire.Frame, error) {
	b, err := s.RecvRaw(ctx)
	if err != nil {
		return wire.Frame{}, err
	}
	return wire.Decode(b)
}

// RecvRaw returns the bytes of the next frame the daemon sent, undecoded.
func (s *Session) RecvRaw(ctx context.Context) ([]byte, error) {
	select {
	case b := <-s.in:
		return b, nil
	case <-s.done:
		select {
		case b := <-s.in:
			return b, nil
		default:
		}
		return nil, fmt.Errorf("%w: %v", ErrClosed, s.err)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Expect returns the next frame of type typ, skipping heartbeats (unless
// typ is heartbeat); any other frame type first is an error.
func (s *Session) Expect(ctx context.Context, typ string) (wire.Frame, error) {
	for {
		f, err := s.Recv(ctx)
		if err != nil {
			return f, err
		}
		if f.Type() == wire.TypeHeartbeat && typ != wire.TypeHeartbeat {
			continue
		}
		if f.Type() != typ {
			return f, fmt.Errorf("got %s, want %s", wire.Describe(f), typ)
		}
		return f, nil
	}
}

// Send writes one frame to the daemon.
func (s *Session) Send(ctx context.Context, f wire.Frame) error {
	b, err := wire.Encode(f)
	if err != nil {
		return err
	}
	return s.ws.Write(ctx, websocket.MessageText, b)
}

// SendRaw writes raw bytes as one text frame.
func (s *Session) SendRaw(ctx context.Context, b []byte) error {
	return s.ws.Write(ctx, websocket.MessageText, b)
}

// Close closes the connection with code and reason.
func (s *Session) Close(code websocket.StatusCode, reason string) {
	s.unblock()
	_ = s.ws.Close(code, reason)
	<-s.done
}

// Cut drops the connection without a close handshake.
func (s *Session) Cut() {
	s.unblock()
	_ = s.ws.CloseNow()
	<-s.done
}

// Done is closed once the connection ended.
func (s *Session) Done() <-chan struct{} { return s.done }
