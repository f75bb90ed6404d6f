package gateway

import (
	"context"
	"log/slog"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/coder/websocket"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/internal/pipenet"
)

// writerRig is one connection's writer over a pipe (no buffer: a peer
// that does not read blocks the write) and a peer that reads only once
// told to.
type writerRig struct {
	t      *testing.T
	c      *wsConn
	peer   *websocket.Conn
	read   chan struct{} // closed: the peer starts reading
	got    chan arrival
	wrote  chan struct{} // closed when the writer stopped (the connection is closed)
	closeL func()
}

type arrival struct {
	at    time.Duration // since the rig started
	frame string
}

func newWriterRig(t *testing.T) *writerRig {
	t.Helper()
	l := pipenet.New()
	accepted := make(chan *websocket.Conn, 1)
	hold := make(chan struct{})
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		accepted <- ws
		<-hold
	})}
	go hs.Serve(l)
	hc := &http.Client{Transport: &http.Transport{DialContext: l.Dial}}
	peer, _, err := websocket.Dial(context.Background(), "ws://core.test/", &websocket.DialOptions{HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	g := &Gateway{opt: Options{WriteTimeout: WriteTimeout, Clock: clock.New()}}
	r := &writerRig{t: t, peer: peer, read: make(chan struct{}), got: make(chan arrival, 16), wrote: make(chan struct{}),
		c: &wsConn{ws: <-accepted, clk: g.opt.Clock, q: make(chan outFrame, OutboundFrames), closing: make(chan struct{})}}
	start := time.Now()
	go func() {
		defer close(r.wrote)
		g.write(r.c, slog.New(slog.DiscardHandler))
	}()
	go func() {
		<-r.read
		for {
			_, b, err := peer.Read(context.Background())
			if err != nil {
				close(r.got)
				return
			}
			r.got <- arrival{at: time.Since(start), frame: string(b)}
		}
	}()
	r.closeL = func() {
		close(hold)
		select {
		case <-r.read:
		default:
			close(r.read) // the peer's reader ends on the closed connection
		}
		r.c.Close(int(websocket.StatusNormalClosure), "")
		peer.CloseNow()
		r.c.ws.CloseNow()
		hs.Close()
		hc.CloseIdleConnections()
		l.Close()
		<-r.wrote
		synctest.Wait()
	}
	return r
}

// arrived drains what the peer has read so far.
func (r *writerRig) arrived() []arrival {
	var out []arrival
	for {
		select {
		case a, ok := <-r.got:
			if !ok {
				return out
			}
			out = append(out, a)
		default:
			return out
		}
	}
}

func (r *writerRig) closed() bool {
	select {
	case <-r.wrote:
		return true
	default:
		return false
	}
}

func (r *writerRig) send(frame string, budget time.Duration) {
	r.t.Helper()
	if !r.c.Send([]byte(frame), budget) {
		r.t.Fatalf("%s not queued", frame)
	}
}

// TestBestEffortFrameWrittenWithinItsBudget: a best-effort frame whose
// peer reads within its 2 s budget is written, and the connection stays
// open.
func TestBestEffortFrameWrittenWithinItsBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newWriterRig(t)
		r.send("cancel", core.ExportCancelSendBudget)
		time.Sleep(core.ExportCancelSendBudget - time.Millisecond)
		close(r.read)
		synctest.Wait()
		if got := r.arrived(); len(got) != 1 || got[0].frame != "cancel" || got[0].at != core.ExportCancelSendBudget-time.Millisecond {
			t.Fatalf("arrived %+v, want the cancel at 1.999s", got)
		}
		if r.closed() {
			t.Fatal("the connection closed")
		}
		r.closeL()
	})
}

// TestBestEffortFrameDroppedBehindStalledPeer: a best-effort frame queued
// behind an ordinary frame the stalled peer does not read is dropped once
// its 2 s budget ran out, unwritten; the connection stays open and the
// ordinary frames before and after it are written, the first at the
// moment the peer reads again (within its own 10 s rule).
func TestBestEffortFrameDroppedBehindStalledPeer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newWriterRig(t)
		r.send("release-1", 0)
		r.send("cancel", core.ExportCancelSendBudget)
		r.send("release-2", 0)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if r.closed() {
			t.Fatal("the connection closed while the peer was stalled for less than 10 s")
		}
		close(r.read)
		synctest.Wait()
		got := r.arrived()
		want := []arrival{{5 * time.Second, "release-1"}, {5 * time.Second, "release-2"}}
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("arrived %+v, want %+v (the cancel dropped)", got, want)
		}
		if r.closed() {
			t.Fatal("dropping the best-effort frame closed the connection")
		}
		r.send("after", 0)
		synctest.Wait()
		if got := r.arrived(); len(got) != 1 || got[0].frame != "after" {
			t.Fatalf("arrived %+v after the drop, want the next frame", got)
		}
		r.closeL()
	})
}

// TestOrdinaryFramesKeepTheTenSecondRule: an ordinary frame the stalled
// peer does not read closes the connection exactly 10 s after its write
// began, and a best-effort frame queued behind it changes nothing.
func TestOrdinaryFramesKeepTheTenSecondRule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newWriterRig(t)
		r.send("release", 0)
		r.send("cancel", core.ExportCancelSendBudget)
		time.Sleep(WriteTimeout - time.Millisecond)
		synctest.Wait()
		if r.closed() {
			t.Fatal("closed before the 10 s write budget")
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if !r.closed() {
			t.Fatal("the write blocked 10 s and the connection is still open")
		}
		r.closeL()
	})
}

// TestBestEffortWriteThatTimesOutCloses: a best-effort frame whose own
// write began and did not finish within its budget closes the connection
// when the budget runs out (part of it may be on the stream).
func TestBestEffortWriteThatTimesOutCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newWriterRig(t)
		r.send("cancel", core.ExportCancelSendBudget)
		time.Sleep(core.ExportCancelSendBudget - time.Millisecond)
		synctest.Wait()
		if r.closed() {
			t.Fatal("closed before the 2 s budget")
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if !r.closed() {
			t.Fatal("the best-effort write blocked past its budget and the connection is still open")
		}
		r.closeL()
	})
}
