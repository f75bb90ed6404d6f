// Package pipenet is a net.Listener over net.Pipe, so an HTTP and
// WebSocket server and its clients exchange real bytes inside a
// testing/synctest bubble, on fake time and without a socket.
package pipenet

import (
	"context"
	"net"
	"sync"
)

// Listener hands each Dial's server end to Accept.
type Listener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// New returns an open Listener.
func New() *Listener {
	return &Listener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept waits for the next Dial, or fails with net.ErrClosed once the
// listener is closed.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops Accept and Dial; it may be called more than once.
func (l *Listener) Close() error { l.once.Do(func() { close(l.done) }); return nil }

// Addr is a loopback address, for servers that print or parse one.
func (l *Listener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1} }

// Dial connects a client to the next Accept; it has the shape of
// http.Transport.DialContext, whose network and address it ignores.
func (l *Listener) Dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, srv := net.Pipe()
	select {
	case l.conns <- srv:
		return client, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
