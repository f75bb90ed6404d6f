package main

import (
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Limits of Core's HTTP listener against slow and piling clients.
const (
	// DefaultBodyReadTimeout bounds reading a request body on every route
	// (the public API and the bootstrap): the whole body must arrive within
	// it, counted from the moment the handler starts, however slowly it
	// trickles. A late body is answered 408 body_timeout and the
	// connection closed. Headers have their own 10 s (headerReadTimeout).
	DefaultBodyReadTimeout = 30 * time.Second
	// DefaultConnsPerAddr bounds the open connections of one remote
	// address (its IP); an accept beyond it is closed at once, before any
	// goroutine or buffer is spent on it.
	DefaultConnsPerAddr = 64
	headerReadTimeout   = 10 * time.Second
)

// bodyDeadline sets a read deadline of d on the connection of every
// request that has a body, for as long as the body is being read; it is
// cleared once the body ends, so a long response (an event stream) is
// never cut by it. Requests without a body (GETs, the WebSocket upgrade)
// get none.
func bodyDeadline(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if err := rc.SetReadDeadline(time.Now().Add(d)); err != nil {
			next.ServeHTTP(w, r)
			return
		}
		r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody clears the connection's read deadline when the body ends.
type deadlineBody struct {
	io.ReadCloser
	rc      *http.ResponseController
	cleared bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.cleared {
		b.cleared = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// limitListener closes accepted connections beyond perAddr open ones
// from the same remote IP.
type limitListener struct {
	net.Listener
	perAddr int
	mu      sync.Mutex
	open    map[string]int
	warned  map[string]bool   // refusals reported since the address was last under its limit
	refused func(addr string) // called once per address each time it hits the limit (logging)
}

func newLimitListener(l net.Listener, perAddr int, refused func(string)) *limitListener {
	return &limitListener{Listener: l, perAddr: perAddr, open: map[string]int{}, warned: map[string]bool{}, refused: refused}
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		host := remoteHost(c.RemoteAddr())
		l.mu.Lock()
		if l.open[host] >= l.perAddr {
			report := !l.warned[host]
			l.warned[host] = true
			l.mu.Unlock()
			_ = c.Close()
			if report && l.refused != nil {
				l.refused(host)
			}
			continue
		}
		l.open[host]++
		l.mu.Unlock()
		return &limitedConn{Conn: c, l: l, host: host}, nil
	}
}

func (l *limitListener) release(host string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[host]--; l.open[host] <= 0 {
		delete(l.open, host)
	}
	delete(l.warned, host)
}

func remoteHost(a net.Addr) string {
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

// limitedConn gives its slot back once, on the first Close.
type limitedConn struct {
	net.Conn
	l    *limitListener
	host string
	once sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.release(c.host) })
	return err
}
