package adaptertest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
)

// pipeNet is an in-memory network of net.Pipe connections with one
// listener at a time: while no listener is up (a Core restarting) dials
// are refused, as a closed port refuses them.
type pipeNet struct {
	mu sync.Mutex
	l  *pipeListener
}

var errRefused = errors.New("adaptertest: connection refused")

// listen replaces the listener; the old one must be closed first.
func (n *pipeNet) listen() *pipeListener {
	l := &pipeListener{n: n, conns: make(chan net.Conn), done: make(chan struct{})}
	n.mu.Lock()
	n.l = l
	n.mu.Unlock()
	return l
}

func (n *pipeNet) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	n.mu.Lock()
	l := n.l
	n.mu.Unlock()
	if l == nil {
		return nil, errRefused
	}
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
	case <-ctx.Done():
	}
	_ = client.Close()
	_ = server.Close()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return nil, errRefused
}

// client returns an HTTP client whose every connection goes over n.
func (n *pipeNet) client() *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: n.dial, DisableKeepAlives: true}}
}

type pipeListener struct {
	n     *pipeNet
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() {
		close(l.done)
		l.n.mu.Lock()
		if l.n.l == l {
			l.n.l = nil
		}
		l.n.mu.Unlock()
	})
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "core.adaptertest:80" }

// serve runs h on a fresh listener of n until the returned server closes.
func serve(n *pipeNet, h http.Handler) *http.Server {
	hs := &http.Server{Handler: h}
	l := n.listen()
	go func() { _ = hs.Serve(l) }()
	return hs
}
