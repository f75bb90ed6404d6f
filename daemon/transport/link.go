package transport

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"

	"github.com/benbjohnson/clock"
	"github.com/coder/websocket"
)

// Handler receives what happens on the link, from the link's goroutine:
// Connected before any frame of that generation, frames in arrival order,
// Disconnected once per generation after its last frame. Generations start
// at 1 and increase by one per connection. The handler must not block
// for long: frames are read only as fast as it takes them.
type Handler interface {
	Connected(gen uint64, c *Conn)
	Received(gen uint64, frame []byte)
	Disconnected(gen uint64, err error)
}

// Link keeps one device connected to Core: bootstrap, dial, read, and
// reconnect by Policy until a permanent failure or the context ends.
type Link struct {
	Client *Client
	Policy Policy
	// Rand draws the backoff jitter; it must be seeded by the caller and is
	// used from the link's goroutine only.
	Rand *rand.Rand
	// Clock times the backoff; nil means the real clock.
	Clock clock.Clock
	Log   *slog.Logger

	at int // index of Client.CoreURL in Client.CoreURLs
}

// rotate moves the client to the next of several Core URLs and reports
// whether it did (false with one URL).
func (l *Link) rotate() bool {
	urls := l.Client.CoreURLs
	if len(urls) < 2 {
		return false
	}
	for i, u := range urls {
		if u == l.Client.CoreURL {
			l.at = i
			break
		}
	}
	l.at = (l.at + 1) % len(urls)
	l.Client.CoreURL = urls[l.at]
	l.log().Info("trying the next Core", "core", l.Client.CoreURL)
	return true
}

func (l *Link) clock() clock.Clock {
	if l.Clock == nil {
		return clock.New()
	}
	return l.Clock
}

func (l *Link) log() *slog.Logger {
	if l.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l.Log
}

// Bootstrap asks Core for the connection parameters, retrying transient
// failures by Policy. It returns a *PermanentError when retrying cannot
// help, or the context's error.
func (l *Link) Bootstrap(ctx context.Context) (Bootstrap, error) {
	for attempt := 1; ; attempt++ {
		b, err := l.Client.Bootstrap(ctx)
		if err == nil {
			return b, nil
		}
		if ctx.Err() != nil {
			return Bootstrap{}, ctx.Err()
		}
		if err := l.backoff(ctx, attempt, err); err != nil {
			return Bootstrap{}, err
		}
		if Standby(err) {
			attempt = 0 // a Core of the pair is alive: the next failure is the first
		}
		l.rotate()
	}
}

// backoff applies the policy to a failed attempt: it waits, or returns
// the permanent error or the context's error.
func (l *Link) backoff(ctx context.Context, attempt int, err error) error {
	d := l.Policy.Next(attempt, err, l.Rand.Float64())
	if d.Stop {
		l.log().Error("giving up", "err", d.Err.Cause.Error(), "fix", d.Err.Fix)
		return d.Err
	}
	l.log().Warn("Core unreachable; retrying", "attempt", attempt, "wait", d.Wait.String(), "err", err.Error())
	t := l.clock().Timer(d.Wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Run connects and reconnects until ctx ends (it then returns nil) or a
// failure is permanent (a *PermanentError). b is the bootstrap answer of
// the client's current Core URL; with several Core URLs, every reconnect
// after a failure or a lost connection goes to the next URL and
// bootstraps there first.
func (l *Link) Run(ctx context.Context, b Bootstrap, h Handler) error {
	clk := l.clock()
	var gen uint64
	attempt := 0
	boot := false // the client moved to another Core: bootstrap there first
	for {
		var ws *websocket.Conn
		var err error
		if boot {
			var nb Bootstrap
			if nb, err = l.Client.Bootstrap(ctx); err == nil {
				b, boot = nb, false
			}
		}
		if err == nil {
			ws, err = l.Client.Dial(ctx, b)
		}
		if err == nil {
			gen++
			up := clk.Now()
			c := newConn(ws, clk)
			l.log().Info("connected to Core", "gen", gen)
			h.Connected(gen, c)
			g := gen
			err = c.read(ctx, func(frame []byte) { h.Received(g, frame) })
			c.Close("")
			_ = ws.CloseNow()
			<-c.Done()
			h.Disconnected(gen, err)
			if ctx.Err() != nil {
				return nil
			}
			l.log().Warn("connection to Core lost", "gen", gen, "err", err.Error())
			if clk.Since(up) >= l.Policy.withDefaults().Stable {
				attempt = 0 // a stable connection: the next failure is the first
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		attempt++
		if err := l.backoff(ctx, attempt, err); err != nil {
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return nil
			}
			return err
		}
		if Standby(err) {
			attempt = 0 // a Core of the pair is alive: the next failure is the first
		}
		if l.rotate() {
			boot = true
		}
	}
}
