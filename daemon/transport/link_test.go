package transport_test

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/goleak"

	"github.com/turnstile-sim/turnstile/daemon/transport"
	"github.com/turnstile-sim/turnstile/daemon/transport/transporttest"
	"github.com/turnstile-sim/turnstile/wire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	deviceID   = "dev-1"
	credential = "s3cret-credential-value"
)

// recorder is a Handler that keeps what it was told.
type recorder struct {
	events chan string
	conns  chan *transport.Conn
}

func newRecorder() *recorder {
	return &recorder{events: make(chan string, 64), conns: make(chan *transport.Conn, 8)}
}

func (r *recorder) Connected(gen uint64, c *transport.Conn) {
	r.conns <- c
	r.events <- "connected"
}
func (r *recorder) Received(gen uint64, b []byte) { r.events <- "frame " + string(b) }
func (r *recorder) Disconnected(gen uint64, err error) {
	r.events <- "disconnected"
}

func startCore(t *testing.T, core *transporttest.Core) (*transport.Link, func()) {
	t.Helper()
	if core.DeviceID == "" {
		core.DeviceID, core.Credential = deviceID, credential
	}
	n := core.Start()
	client := n.HTTPClient()
	link := &transport.Link{
		Client: &transport.Client{CoreURL: transporttest.URL, DeviceID: deviceID, Credential: credential, HTTP: client},
		Policy: transport.Policy{Base: time.Second, Max: 8 * time.Second},
		Rand:   rand.New(rand.NewPCG(1, 2)),
	}
	return link, func() {
		core.Close()
		client.CloseIdleConnections()
	}
}

func TestIncompatibleVersionStopsAfterOneAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		core := &transporttest.Core{Version: "9.9.9"}
		link, stop := startCore(t, core)
		defer stop()
		ctx := t.Context()
		b, err := link.Bootstrap(ctx)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		err = link.Run(ctx, b, newRecorder())
		var perm *transport.PermanentError
		if !errors.As(err, &perm) {
			t.Fatalf("Run returned %v, want a permanent error", err)
		}
		var he *transport.HTTPError
		if !errors.As(err, &he) || he.Status != http.StatusUpgradeRequired || he.Code != "incompatible_version" {
			t.Fatalf("cause %v, want HTTP 426 incompatible_version", err)
		}
		if !strings.Contains(err.Error(), `protocol version "`+wire.Version+`"`) || !strings.Contains(err.Error(), "upgrade") {
			t.Fatalf("message does not say what to fix: %v", err)
		}
		if got := core.Dials(); got != 1 {
			t.Fatalf("%d upgrade attempts, want 1", got)
		}
		if waited := time.Since(start); waited != 0 {
			t.Fatalf("waited %v before giving up", waited)
		}
	})
}

func TestBadCredentialIsPermanentAtBootstrap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		core := &transporttest.Core{DeviceID: deviceID, Credential: "another credential"}
		link, stop := startCore(t, core)
		defer stop()
		_, err := link.Bootstrap(t.Context())
		var he *transport.HTTPError
		if transport.Permanent(err) == nil || !errors.As(err, &he) || he.Status != http.StatusUnauthorized {
			t.Fatalf("bootstrap returned %v, want a permanent 401", err)
		}
		if !strings.Contains(err.Error(), "credential file") {
			t.Fatalf("message does not say what to fix: %v", err)
		}
		if strings.Contains(err.Error(), credential) {
			t.Fatalf("error carries the credential: %v", err)
		}
		if core.Bootstraps() != 1 {
			t.Fatalf("%d bootstrap attempts, want 1", core.Bootstraps())
		}
	})
}

func TestUnauthorizedUpgradeIsPermanent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		core := &transporttest.Core{Refuse: func(int) (int, string) { return http.StatusUnauthorized, "unknown_device" }}
		link, stop := startCore(t, core)
		defer stop()
		err := link.Run(t.Context(), transport.Bootstrap{}, newRecorder())
		var he *transport.HTTPError
		if transport.Permanent(err) == nil || !errors.As(err, &he) || he.Status != 401 || he.Code != "unknown_device" {
			t.Fatalf("Run returned %v, want a permanent 401", err)
		}
		if core.Dials() != 1 {
			t.Fatalf("%d upgrade attempts, want 1", core.Dials())
		}
	})
}

func TestRetiredDeviceCloseIsPermanent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		core := &transporttest.Core{}
		link, stop := startCore(t, core)
		defer stop()
		ctx := t.Context()
		rec := newRecorder()
		res := make(chan error, 1)
		go func() { res <- link.Run(ctx, transport.Bootstrap{}, rec) }()
		s, err := core.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ev := <-rec.events; ev != "connected" {
			t.Fatalf("first event %q", ev)
		}
		s.Close(transport.CloseRetired, "runtime retired")
		err = <-res
		if websocket.CloseStatus(err) != transport.CloseRetired || transport.Permanent(err) == nil {
			t.Fatalf("Run returned %v, want permanent close 4001", err)
		}
		if !strings.Contains(err.Error(), "enrol a new device ID") {
			t.Fatalf("message does not say what to fix: %v", err)
		}
		if ev := <-rec.events; ev != "disconnected" {
			t.Fatalf("second event %q", ev)
		}
		if core.Dials() != 1 {
			t.Fatalf("%d upgrade attempts after 4001, want 1", core.Dials())
		}
	})
}

// Transient refusals are retried after the policy's jittered waits, drawn
// from the injected source; the credential never appears in a URL.
func TestTransientFailuresReconnectWithBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var at []time.Time
		core := &transporttest.Core{Refuse: func(attempt int) (int, string) {
			at = append(at, time.Now())
			if attempt <= 3 {
				return http.StatusServiceUnavailable, "internal"
			}
			return 0, ""
		}}
		link, stop := startCore(t, core)
		defer stop()
		ctx, cancel := context.WithCancel(t.Context())
		rec := newRecorder()
		res := make(chan error, 1)
		go func() { res <- link.Run(ctx, transport.Bootstrap{}, rec) }()
		s, err := core.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// The same seed drawn in the same order gives the expected waits.
		r := rand.New(rand.NewPCG(1, 2))
		for i := 1; i < len(at); i++ {
			want := link.Policy.Next(i, &transport.HTTPError{Status: 503}, r.Float64()).Wait
			if got := at[i].Sub(at[i-1]); got != want {
				t.Fatalf("wait before attempt %d: %v, want %v", i+1, got, want)
			}
		}
		if len(at) != 4 {
			t.Fatalf("%d attempts, want 4", len(at))
		}
		if err := s.Send(ctx, wire.Frame{Payload: wire.DeviceShutdown{}}); err != nil {
			t.Fatal(err)
		}
		<-rec.events // connected
		if ev := <-rec.events; !strings.HasPrefix(ev, "frame ") || !strings.Contains(ev, wire.TypeDeviceShutdown) {
			t.Fatalf("got %q, want the frame", ev)
		}
		cancel()
		if err := <-res; err != nil {
			t.Fatalf("Run after cancel: %v", err)
		}
		for _, u := range core.RequestURLs() {
			if strings.Contains(u, credential) {
				t.Fatalf("credential in URL %q", u)
			}
			if !strings.Contains(u, "device_id="+deviceID) || !strings.Contains(u, "version="+wire.Version) {
				t.Fatalf("upgrade URL %q lacks device_id or version", u)
			}
		}
		for _, a := range core.Authorizations() {
			if a != "Bearer "+credential {
				t.Fatalf("Authorization %q", a)
			}
		}
	})
}

// A connection that drops before Policy.Stable does not reset the
// attempt count: a flapping Core sees growing waits. One that stayed up
// for Stable does.
func TestFlappingConnectionsBackOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		core := &transporttest.Core{}
		link, stop := startCore(t, core)
		defer stop()
		link.Policy.Stable = time.Minute
		ctx, cancel := context.WithCancel(t.Context())
		res := make(chan error, 1)
		go func() { res <- link.Run(ctx, transport.Bootstrap{}, newRecorder()) }()
		r := rand.New(rand.NewPCG(1, 2)) // the link's seed, drawn in the same order
		// The attempt each reconnect counts: 1, 2, 3 while flapping, then 1
		// after the connection that stayed up for a minute.
		s, err := core.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i, attempt := range []int{1, 2, 3, 1} {
			if i == 3 {
				<-time.After(time.Minute) // fake time
			}
			s.Close(websocket.StatusGoingAway, "flap")
			closed := time.Now()
			want := link.Policy.Next(attempt, io.EOF, r.Float64()).Wait
			if s, err = core.Next(ctx); err != nil {
				t.Fatal(err)
			}
			if got := time.Since(closed); got != want {
				t.Fatalf("reconnect %d waited %v, want %v (attempt %d)", i+1, got, want, attempt)
			}
		}
		cancel()
		<-res
	})
}

// With the default policy, a successful connection (here up for 40 s,
// well under a minute) resets the backoff: the reconnect after it waits
// as after a first failure, although the two connections before it were
// flapping and had grown the count.
func TestSuccessfulConnectionResetsBackoffByDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		core := &transporttest.Core{}
		link, stop := startCore(t, core)
		defer stop()
		link.Policy = transport.Policy{} // the production defaults
		ctx, cancel := context.WithCancel(t.Context())
		res := make(chan error, 1)
		go func() { res <- link.Run(ctx, transport.Bootstrap{}, newRecorder()) }()
		r := rand.New(rand.NewPCG(1, 2)) // the link's seed, drawn in the same order
		s, err := core.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i, step := range []struct {
			up      time.Duration
			attempt int
		}{{0, 1}, {time.Second, 2}, {40 * time.Second, 1}, {0, 2}} {
			if step.up > 0 {
				<-time.After(step.up) // fake time
			}
			s.Close(websocket.StatusGoingAway, "lost")
			closed := time.Now()
			want := link.Policy.Next(step.attempt, io.EOF, r.Float64()).Wait
			if s, err = core.Next(ctx); err != nil {
				t.Fatal(err)
			}
			if got := time.Since(closed); got != want {
				t.Fatalf("reconnect %d after %v up waited %v, want %v (attempt %d)", i+1, step.up, got, want, step.attempt)
			}
		}
		cancel()
		<-res
	})
}

// A frame Core does not read within its budget closes the connection at
// the budget (measured from the Send), and the link reports it.
func TestStalledWriteClosesAtItsBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		core := &transporttest.Core{}
		link, stop := startCore(t, core)
		defer stop()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		rec := newRecorder()
		res := make(chan error, 1)
		go func() { res <- link.Run(ctx, transport.Bootstrap{}, rec) }()
		s, err := core.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		c := <-rec.conns
		<-rec.events // connected
		s.StopReading()
		frame := []byte(`{"type":"heartbeat","payload":{"ts":1,"active_requests":0}}`)
		c.Send(frame, 3*time.Second) // read: Core was waiting for it
		rctx, rcancel := context.WithTimeout(ctx, time.Minute)
		defer rcancel()
		if _, err := s.Recv(rctx); err != nil {
			t.Fatalf("%v after %d dials", err, core.Dials())
		}
		sent := time.Now()
		c.Send(frame, 3*time.Second) // never read
		if ev := <-rec.events; ev != "disconnected" {
			t.Fatalf("event %q", ev)
		}
		if d := time.Since(sent); d != 3*time.Second {
			t.Fatalf("stalled write closed the connection after %v, want its 3s budget", d)
		}
		cancel()
		if err := <-res; err != nil {
			t.Fatal(err)
		}
	})
}

// The read limit is wire.FrameBytesMax: a frame of exactly 4 MiB is read,
// one byte more ends the connection.
func TestReadLimitIsFourMiB(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		core := &transporttest.Core{}
		link, stop := startCore(t, core)
		defer stop()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		rec := newRecorder()
		res := make(chan error, 1)
		go func() { res <- link.Run(ctx, transport.Bootstrap{}, rec) }()
		s, err := core.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		<-rec.events // connected
		big := make([]byte, wire.FrameBytesMax)
		for i := range big {
			big[i] = 'x'
		}
		if err := s.SendRaw(ctx, big); err != nil {
			t.Fatal(err)
		}
		if ev := <-rec.events; len(ev) != len("frame ")+wire.FrameBytesMax {
			t.Fatalf("a %d-byte frame was not read whole (event of %d bytes)", wire.FrameBytesMax, len(ev))
		}
		_ = s.SendRaw(ctx, append(big, 'x'))
		if ev := <-rec.events; ev != "disconnected" {
			t.Fatalf("after an oversized frame: %.40q", ev)
		}
		cancel()
		<-res
	})
}

// TestSeveralCoreURLsRotate: with the URLs of an active–standby pair, a
// bootstrap the standby refuses (503 core_standby) is retried on the
// other Core after the backoff; a lost connection moves the link to the
// next URL, which bootstraps first, and the link ends up on whichever
// Core serves, each wait drawn by the policy.
func TestSeveralCoreURLsRotate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var standby atomic.Bool // Core A refuses until it takes over
		standby.Store(true)
		a := &transporttest.Core{DeviceID: deviceID, Credential: credential, RefuseBootstrap: func(int) int {
			if standby.Load() {
				return http.StatusServiceUnavailable
			}
			return 0
		}}
		b := &transporttest.Core{DeviceID: deviceID, Credential: credential}
		netA, netB := a.Start(), b.Start()
		defer a.Close()
		defer b.Close()
		hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true,
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				if strings.HasPrefix(addr, "core-a.test") {
					return netA.DialContext(ctx, network, addr)
				}
				return netB.DialContext(ctx, network, addr)
			}}}
		defer hc.CloseIdleConnections()
		urls := []string{"http://core-a.test", "http://core-b.test"}
		link := &transport.Link{
			Client: &transport.Client{CoreURL: urls[0], CoreURLs: urls, DeviceID: deviceID, Credential: credential, HTTP: hc},
			Policy: transport.Policy{Base: time.Second, Max: 8 * time.Second},
			Rand:   rand.New(rand.NewPCG(1, 2)),
		}
		if err := link.Client.Validate(); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		boot, err := link.Bootstrap(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if a.Bootstraps() != 1 || b.Bootstraps() != 1 || link.Client.CoreURL != urls[1] || !strings.Contains(boot.WSURL, "core-b.test") {
			t.Fatalf("bootstraps A %d B %d, now at %s, ws_url %s", a.Bootstraps(), b.Bootstraps(), link.Client.CoreURL, boot.WSURL)
		}
		rec := newRecorder()
		res := make(chan error, 1)
		go func() { res <- link.Run(ctx, boot, rec) }()
		sb, err := b.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		<-rec.events // connected to B
		// B dies while A is still the standby: the link tries A (refused),
		// then B again.
		sb.Cut()
		if sb, err = b.Next(ctx); err != nil {
			t.Fatal(err)
		}
		<-rec.events // disconnected
		<-rec.events // connected to B again
		if a.Bootstraps() != 2 || b.Bootstraps() != 2 || a.Dials() != 0 {
			t.Fatalf("after the first loss: bootstraps A %d B %d, dials A %d", a.Bootstraps(), b.Bootstraps(), a.Dials())
		}
		// A takes over and B goes away for good: the link lands on A.
		standby.Store(false)
		b.Close()
		sa, err := a.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if link.Client.CoreURL != urls[0] || a.Dials() != 1 {
			t.Fatalf("now at %s with %d dials of A", link.Client.CoreURL, a.Dials())
		}
		sa.Close(websocket.StatusNormalClosure, "")
		cancel()
		if err := <-res; err != nil {
			t.Fatalf("Run: %v", err)
		}
	})
}

// TestCoreURLsAreValidated: every URL of a pair must be an absolute
// http or https URL.
func TestCoreURLsAreValidated(t *testing.T) {
	c := &transport.Client{CoreURL: "http://a", CoreURLs: []string{"http://a", "ftp://b"}, DeviceID: deviceID, Credential: credential}
	if err := c.Validate(); !errors.Is(err, transport.ErrConfig) || !strings.Contains(err.Error(), "absolute http or https") {
		t.Fatalf("Validate: %v", err)
	}
}

// TestStandbyAnswerKeepsTheRetryShort: the active Core of a pair died (its
// URL refuses connections) and the other answers 503 core_standby until
// it takes the lease. A standby's answer means a Core is about to serve:
// the link retries about once a second instead of letting the dead Core's
// refusals and the standby's answers grow the backoff, so it connects
// within a second or two of the takeover, not tens of seconds later.
func TestStandbyAnswerKeepsTheRetryShort(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const takeover = 12 * time.Second
		start := time.Now()
		a := &transporttest.Core{DeviceID: deviceID, Credential: credential}
		b := &transporttest.Core{DeviceID: deviceID, Credential: credential, RefuseCode: transport.CodeStandby,
			RefuseBootstrap: func(int) int {
				if time.Since(start) < takeover {
					return http.StatusServiceUnavailable
				}
				return 0
			}}
		netA, netB := a.Start(), b.Start()
		a.Close() // the active Core is gone
		defer b.Close()
		hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true,
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				if strings.HasPrefix(addr, "core-a.test") {
					return netA.DialContext(ctx, network, addr)
				}
				return netB.DialContext(ctx, network, addr)
			}}}
		defer hc.CloseIdleConnections()
		urls := []string{"http://core-a.test", "http://core-b.test"}
		link := &transport.Link{
			Client: &transport.Client{CoreURL: urls[0], CoreURLs: urls, DeviceID: deviceID, Credential: credential, HTTP: hc},
			Rand:   rand.New(rand.NewPCG(1, 2)),
		}
		if _, err := link.Bootstrap(t.Context()); err != nil {
			t.Fatal(err)
		}
		if late := time.Since(start) - takeover; late > 2*time.Second || link.Client.CoreURL != urls[1] {
			t.Fatalf("bootstrapped at %s %s after the takeover (%d standby answers)", link.Client.CoreURL, late, b.Bootstraps()-1)
		}
	})
}
