// Package coreside plays a scenario against Core's production shell: the
// real core/gateway and core/server over core.Machine and an in-memory
// backend, reached by a scripted Runtime over a real WebSocket (HTTP
// upgrade, frames, close codes) on net.Pipe. The Runtime's frames of the
// file are written byte for byte; Core's frames are read off the socket
// and asserted in order with placeholder binding; core-state reads the
// machine through the server. Run it inside a testing/synctest bubble:
// every wait is fake time. It never imports the daemon.
package coreside

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing/synctest"
	"time"

	"github.com/coder/websocket"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/internal/pipenet"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/scenarios/coreapi"
	"github.com/turnstile-sim/turnstile/wire"
)

// Device and Credential are the scripted Runtime's identity (§7).
const (
	Device     = "runtime"
	Credential = "synthetic-contract-credential"
	base       = "http://core.test"
)

// KeepaliveInterval: the scripted Runtime repeats its last heartbeat this
// often while time advances.
const KeepaliveInterval = 15 * time.Second

// Runner drives a gateway for the scenario player. Play it from the
// bubble's test goroutine.
type Runner struct {
	scenarios.Log
	*coreapi.Steps
	s      *server.Server
	hc     *http.Client
	hs     *http.Server
	l      *pipenet.Listener
	cancel context.CancelFunc
	ran    chan error

	conn   *wsConn
	all    []*wsConn // every connection opened, closed by Close
	hb     []byte
	nextHB time.Time
	ws     chan wsAnswer // the latest workspace call, not yet answered
	wsDone *wsAnswer     // its answer
}

// wsConn is the scripted Runtime's connection; a reader goroutine
// collects what Core sends.
type wsConn struct {
	ws     *websocket.Conn
	mu     sync.Mutex
	frames [][]byte
	err    error // the read error once the connection ended
	ended  chan struct{}
}

// New starts a server and its gateway with the scripted Runtime's device
// registered.
func New(cfg core.Config) (*Runner, error) {
	back := server.NewMemory()
	if err := back.AddDevice(Device, sha256.Sum256([]byte(Credential)), time.Now()); err != nil {
		return nil, err
	}
	s, err := server.New(back, server.Options{Config: cfg})
	if err != nil {
		return nil, err
	}
	gw, err := gateway.New(s, gateway.Options{PublicURL: base})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	gw.Register(mux)
	l := pipenet.New()
	r := &Runner{Log: scenarios.Log{Name: "coreside"}, s: s, l: l,
		hs: &http.Server{Handler: mux}, ran: make(chan error, 1),
		hc: &http.Client{Transport: &http.Transport{DialContext: l.Dial}}}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	r.Steps = coreapi.NewSteps(&r.Log, coreapi.Events(r, Device))
	go func() { r.ran <- s.Run(ctx) }()
	go r.hs.Serve(l)
	return r, nil
}

// Close stops the server and every connection.
func (r *Runner) Close() {
	for _, c := range r.all {
		c.ws.CloseNow()
	}
	r.cancel()
	<-r.ran
	r.hs.Close()
	r.hc.CloseIdleConnections()
	synctest.Wait()
}

func (r *Runner) received() [][]byte {
	synctest.Wait()
	if r.conn == nil {
		return nil
	}
	r.conn.mu.Lock()
	defer r.conn.mu.Unlock()
	return r.conn.frames
}

func (r *Runner) pop() ([]byte, bool) {
	frames := r.received()
	if len(frames) == 0 {
		return nil, false
	}
	r.conn.mu.Lock()
	defer r.conn.mu.Unlock()
	f := r.conn.frames[0]
	r.conn.frames = r.conn.frames[1:]
	return f, true
}

// Unlisted takes the frames Core sent that no step listed yet.
func (r *Runner) Unlisted() []string {
	var out []string
	for {
		f, ok := r.pop()
		if !ok {
			return out
		}
		out = append(out, string(f))
	}
}

// Sent takes the next frame Core sent.
func (r *Runner) Sent(*scenarios.Frame) ([]byte, error) {
	f, _ := r.pop()
	return f, nil
}

// Deliver writes a frame of the scripted Runtime to the socket.
func (r *Runner) Deliver(f *scenarios.Frame, raw []byte) {
	if r.conn == nil {
		r.Failf("runtime frame %s with no connection open", f.Type)
		return
	}
	if err := r.conn.ws.Write(context.Background(), websocket.MessageText, raw); err != nil {
		r.Failf("write %s: %v", f.Type, err)
		return
	}
	if f.Type == wire.TypeHeartbeat && !f.Invalid {
		r.hb, r.nextHB = raw, time.Now().Add(KeepaliveInterval)
	}
	synctest.Wait()
}

func wsURL(version string) string {
	return "ws://core.test" + gateway.WSPath + "?" + url.Values{"device_id": {Device}, "version": {version}}.Encode()
}

// Connect dials the gateway as the scripted Runtime.
func (r *Runner) Connect() {
	ws, _, err := websocket.Dial(context.Background(), wsURL(wire.Version), &websocket.DialOptions{
		HTTPClient: r.hc, HTTPHeader: http.Header{"Authorization": {"Bearer " + Credential}}})
	if err != nil {
		r.Failf("dial: %v", err)
		return
	}
	ws.SetReadLimit(wire.FrameBytesMax)
	c := &wsConn{ws: ws, ended: make(chan struct{})}
	go func() {
		defer close(c.ended)
		for {
			_, b, err := ws.Read(context.Background())
			c.mu.Lock()
			if err != nil {
				c.err = err
				c.mu.Unlock()
				return
			}
			c.frames = append(c.frames, b)
			c.mu.Unlock()
		}
	}()
	r.conn, r.hb = c, nil
	r.all = append(r.all, c)
	synctest.Wait()
}

// Disconnect loses the connection; byCore: Core closed it.
func (r *Runner) Disconnect(byCore bool) {
	if r.conn == nil {
		r.Failf("disconnect with no connection open")
		return
	}
	c := r.conn
	r.conn, r.hb = nil, nil
	if byCore {
		synctest.Wait()
		select {
		case <-c.ended:
			if st := websocket.CloseStatus(c.err); st != websocket.StatusPolicyViolation {
				r.Failf("Core closed the connection with %v, want policy violation (1008)", c.err)
			}
		default:
			r.Failf("Core did not close the connection")
		}
	}
	c.ws.CloseNow()
	synctest.Wait()
}

// Advance sleeps d of fake time, repeating the last heartbeat.
func (r *Runner) Advance(d time.Duration) {
	end := time.Now().Add(d)
	for {
		now := time.Now()
		if r.hb != nil && r.conn != nil && !r.nextHB.After(end) {
			time.Sleep(r.nextHB.Sub(now))
			synctest.Wait()
			if r.conn == nil || r.hb == nil {
				continue
			}
			if err := r.conn.ws.Write(context.Background(), websocket.MessageText, r.hb); err != nil {
				r.Failf("keepalive heartbeat: %v", err)
				r.hb = nil
			}
			r.nextHB = r.nextHB.Add(KeepaliveInterval)
			continue
		}
		time.Sleep(end.Sub(now))
		synctest.Wait()
		return
	}
}

func (r *Runner) VersionRefused(args map[string]string) {
	v := strings.ReplaceAll(args["version"], "$version", wire.Version)
	u := "http://core.test" + gateway.WSPath + "?" + url.Values{"device_id": {Device}, "version": {v}}.Encode()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("Authorization", "Bearer "+Credential)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	resp, err := r.hc.Do(req)
	if err != nil {
		r.Failf("upgrade with version %q: %v", v, err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := args["status"]; want != "" && fmt.Sprint(resp.StatusCode) != want {
		r.Failf("version %q: status %d, want %s (%s)", v, resp.StatusCode, want, body)
	}
	if want := args["code"]; want != "" && !strings.Contains(string(body), `"error":"`+want+`"`) {
		r.Failf("version %q: body %s, want error %s", v, body, want)
	}
	err = r.s.Query(context.Background(), func(view server.View) {
		for _, d := range view.Machine().Devices() {
			if d.Conn != 0 {
				r.Failf("version %q: device %s registered on %s", v, d.Device, d.Conn)
			}
		}
	})
	if err != nil {
		r.Failf("version %q: reading Core: %v", v, err)
	}
}
