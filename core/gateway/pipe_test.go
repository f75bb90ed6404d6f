package gateway_test

import (
	"context"
	"crypto/sha256"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/coder/websocket"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/internal/pipenet"
	"github.com/turnstile-sim/turnstile/wire"
)

// bubble is a server and gateway served over pipes.
type bubble struct {
	t      *testing.T
	s      *server.Server
	hc     *http.Client
	hs     *http.Server
	l      *pipenet.Listener
	cancel context.CancelFunc
	ran    chan error
}

func newBubble(t *testing.T, opt gateway.Options, devices ...string) *bubble {
	back := server.NewMemory()
	for _, d := range devices {
		_ = back.AddDevice(d, sha256.Sum256([]byte(credential(d))), time.Now())
	}
	s, err := server.New(back, server.Options{Config: core.Config{Policy: enginetest.OpenPolicy("contract")}})
	if err != nil {
		t.Fatal(err)
	}
	opt.PublicURL = "http://core.test"
	gw, err := gateway.New(s, opt)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	gw.Register(mux)
	l := pipenet.New()
	b := &bubble{t: t, s: s, l: l, hs: &http.Server{Handler: mux}, ran: make(chan error, 1),
		hc: &http.Client{Transport: &http.Transport{DialContext: l.Dial}}}
	ctx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel
	go func() { b.ran <- s.Run(ctx) }()
	go b.hs.Serve(l)
	return b
}

func (b *bubble) close() {
	b.cancel()
	<-b.ran
	b.hs.Close()
	b.hc.CloseIdleConnections()
	synctest.Wait()
}

func (b *bubble) dial(device string, rt *scripted.Runtime) *scripted.Client {
	b.t.Helper()
	c, err := scripted.Dial(context.Background(), b.hc, "ws://core.test"+gateway.WSPath, device, credential(device), rt)
	if err != nil {
		b.t.Fatal(err)
	}
	return c
}

func (b *bubble) devices() []core.DeviceView {
	var out []core.DeviceView
	_ = b.s.Query(context.Background(), func(v server.View) { out = v.Machine().Devices() })
	return out
}

func TestIdleConnectionClosedAfterSixtySeconds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBubble(t, gateway.Options{}, "d1")
		c := b.dial("d1", &scripted.Runtime{})
		read := make(chan error, 1)
		start := time.Now()
		go func() { _, _, err := c.WS.Read(context.Background()); read <- err }()
		time.Sleep(59 * time.Second)
		synctest.Wait()
		select {
		case err := <-read:
			t.Fatalf("closed before 60 s: %v", err)
		default:
		}
		err := <-read
		if st := websocket.CloseStatus(err); st != websocket.StatusPolicyViolation {
			t.Fatalf("close: %v", err)
		}
		if d := time.Since(start); d != 60*time.Second {
			t.Fatalf("closed after %s, want 60s", d)
		}
		b.close()
	})
}

func TestHeartbeatsKeepTheConnectionOpen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBubble(t, gateway.Options{}, "d1")
		rt := &scripted.Runtime{}
		c := b.dial("d1", rt)
		for range 10 {
			time.Sleep(15 * time.Second)
			if err := c.WS.Write(context.Background(), websocket.MessageText, rt.Heartbeat(0)); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		if d := b.devices(); len(d) != 1 || d[0].Conn == 0 {
			t.Fatalf("connection lost despite heartbeats: %+v", d)
		}
		c.WS.CloseNow()
		b.close()
	})
}

// A Runtime that never reads: its outbound queue and the pipe fill up, its
// writes exceed the 10 s budget or the 64-frame queue overflows, and only
// its connection is closed; another device keeps working.
func TestSlowReaderOverflowsOnlyItsOwnConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBubble(t, gateway.Options{}, "a-slow", "b-fast")
		slow := b.dial("a-slow", &scripted.Runtime{Hold: true}) // never read
		fast := b.dial("b-fast", &scripted.Runtime{Deltas: 1})
		served := make(chan error, 1)
		go func() { served <- fast.Serve(context.Background()) }()
		synctest.Wait()
		ctx := context.Background()
		var sessions []string
		for range 80 {
			r, _ := b.s.Call(ctx, server.Request{Event: func(c core.CallID) core.Event {
				return core.CreateSession{Call: c, Agent: core.AgentConfig{Kind: scripted.Kind, Model: "m", Environment: core.EnvNone}}
			}})
			sessions = append(sessions, r.Result.Value.(core.SessionCreated).Session)
		}
		for _, sid := range sessions {
			_, _ = b.s.Call(ctx, server.Request{Event: func(c core.CallID) core.Event {
				return core.SubmitTurn{Call: c, Session: sid, Input: wire.TextInput("x")}
			}})
		}
		time.Sleep(11 * time.Second) // past the write budget
		synctest.Wait()
		var slowConn core.ConnID
		for _, d := range b.devices() {
			if d.Device == "a-slow" {
				slowConn = d.Conn
			}
			if d.Device == "b-fast" && d.Conn == 0 {
				t.Fatal("the fast device lost its connection")
			}
		}
		if slowConn != 0 {
			t.Fatal("the slow device's connection is still open")
		}
		completed := 0
		_ = b.s.Query(ctx, func(v server.View) {
			for _, rec := range v.Backend().Turns() {
				if rec.State == core.TurnCompleted {
					completed++
				}
			}
		})
		if completed == 0 {
			t.Fatal("no Turn completed on the fast device")
		}
		fast.WS.CloseNow()
		<-served
		slow.WS.CloseNow()
		b.close()
	})
}

// A Runtime that stops reading blocks Core's write of its frame (net.Pipe
// has no buffer): the write budget closes that connection 10 s later, and
// the machine sees it gone.
func TestBlockedWriteClosedAfterTenSeconds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBubble(t, gateway.Options{}, "d1")
		c := b.dial("d1", &scripted.Runtime{}) // never read
		synctest.Wait()
		ctx := context.Background()
		r, _ := b.s.Call(ctx, server.Request{Event: func(id core.CallID) core.Event {
			return core.CreateSession{Call: id, Agent: core.AgentConfig{Kind: scripted.Kind, Model: "m", Environment: core.EnvNone}}
		}})
		_, _ = b.s.Call(ctx, server.Request{Event: func(id core.CallID) core.Event {
			return core.SubmitTurn{Call: id, Session: r.Result.Value.(core.SessionCreated).Session, Input: wire.TextInput("x")}
		}})
		start := time.Now()
		time.Sleep(10*time.Second - time.Millisecond)
		synctest.Wait()
		if d := b.devices(); len(d) != 1 || d[0].Conn == 0 {
			t.Fatalf("closed before the 10 s write budget: %+v", d)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if d := b.devices(); len(d) != 1 || d[0].Conn != 0 {
			t.Fatalf("open %s after its write blocked: %+v", time.Since(start), d)
		}
		c.WS.CloseNow()
		b.close()
	})
}
