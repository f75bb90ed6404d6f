// Package transporttest is a scripted Core for daemon shell tests: the
// bootstrap route and the WebSocket route of wire-reference §2.2 served
// over an in-memory network of net.Pipe connections, so that tests run
// inside a testing/synctest bubble (fake time, durable blocking) with no
// socket. A test drives each accepted connection frame by frame.
package transporttest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
)

// Network is an in-memory network: every Dial returns one end of a fresh
// net.Pipe and hands the other to the Listener.
type Network struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
	mu     sync.Mutex
	open   []net.Conn // client ends, for Cut
}

// NewNetwork returns an open network.
func NewNetwork() *Network {
	return &Network{conns: make(chan net.Conn), closed: make(chan struct{})}
}

var errNetworkClosed = errors.New("transporttest: network closed")

// DialContext connects to the network's listener, whatever the address.
func (n *Network) DialContext(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case n.conns <- server:
		n.mu.Lock()
		n.open = append(n.open, client)
		n.mu.Unlock()
		return client, nil
	case <-n.closed:
		return nil, errNetworkClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// HTTPClient returns a client whose every connection goes over n.
func (n *Network) HTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: n.DialContext, DisableKeepAlives: true}}
}

// Cut breaks every connection dialled so far, as a network failure
// would: both ends see their reads and writes fail. Later dials work.
func (n *Network) Cut() {
	n.mu.Lock()
	open := n.open
	n.open = nil
	n.mu.Unlock()
	for _, c := range open {
		_ = c.Close()
	}
}

// Group is a set of connections of one client that can be cut together
// (for example a daemon's, while an API client's stay up).
type Group struct {
	n    *Network
	mu   sync.Mutex
	open []net.Conn
}

// Group returns an empty connection group of n.
func (n *Network) Group() *Group { return &Group{n: n} }

// DialContext dials n and keeps the connection in the group.
func (g *Group) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := g.n.DialContext(ctx, network, addr)
	if err == nil {
		g.mu.Lock()
		g.open = append(g.open, c)
		g.mu.Unlock()
	}
	return c, err
}

// HTTPClient returns a client whose connections belong to the group.
func (g *Group) HTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: g.DialContext, DisableKeepAlives: true}}
}

// Cut breaks every connection of the group dialled so far.
func (g *Group) Cut() {
	g.mu.Lock()
	open := g.open
	g.open = nil
	g.mu.Unlock()
	for _, c := range open {
		_ = c.Close()
	}
}

// Accept implements net.Listener.
func (n *Network) Accept() (net.Conn, error) {
	select {
	case c := <-n.conns:
		return c, nil
	case <-n.closed:
		return nil, net.ErrClosed
	}
}

// Close implements net.Listener; it also refuses later dials.
func (n *Network) Close() error {
	n.once.Do(func() { close(n.closed) })
	return nil
}

// Addr implements net.Listener.
func (n *Network) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "core.test:80" }
