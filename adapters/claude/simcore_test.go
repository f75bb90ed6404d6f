package claude

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/adaptertest"
	"github.com/turnstile-sim/turnstile/adapters/claude/claudetest"
	"github.com/turnstile-sim/turnstile/internal/clirunner"
)

// TestAgainstSimulatedCore runs the adapter over the pinned CLI in the
// real daemon shell against the simulated Core, with a seeded workload
// and faults. The kit runs inside a testing/synctest bubble; the CLI and
// the goroutines that own it run outside it (host), and the CLI's stdout
// reaches the adapter through a bridge: while the CLI owes an answer (a
// user message without its result, a control request without its
// response) a read waits on a channel made outside the bubble, so virtual
// time stands still while the CLI works; when it owes nothing, a read
// polls with virtual-time sleeps, so virtual time moves. Each Turn draws a native behaviour:
// text, a slow stream, a tool round trip, an API error.
func TestAgainstSimulatedCore(t *testing.T) {
	s := claudetest.NewServer(t)
	opts := realOptions(t, s)
	hst := startHost(t)
	hst.holding = s.Holding
	opts.spawn = hst.spawn
	replies := []claudetest.Reply{
		{Text: []string{"simulated", " answer"}, Usage: [2]int{5, 2}},
		{Text: []string{"slow", " stream", " here"}, Interval: 20 * time.Millisecond},
		{Tool: &claudetest.ToolUse{Name: "Bash", Input: map[string]any{"command": "echo tool", "description": "tool"}}},
		{Status: 529},
		{}, // held: see BeforeTurn
	}
	adaptertest.RunAgainstSimulatedCore(t, Declaration(opts), adaptertest.Options{
		Seed:  3,
		Log:   logWriter(t),
		Steps: 30,
		BeforeTurn: func(r *rand.Rand) {
			s.Clear()
			i := r.IntN(len(replies))
			if i < len(replies)-1 {
				s.Queue(replies[i])
				return
			}
			// Every session's native turn keeps running on tool calls
			// for a while of virtual time (written input folds at each
			// tool boundary), then ends with text unless cancelled.
			s.HoldSession("")
			time.AfterFunc(time.Duration(2+r.IntN(8))*time.Second, func() { s.ReleaseSession("") })
		},
	})
}

// host starts and supervises CLI processes outside the synctest bubble.
// Every channel the bubble and the host share is made by the host: a
// goroutine of the bubble may use a channel made outside it (and waits
// on it without letting virtual time move), never the reverse.
type host struct {
	holding func() bool // the fake keeps native turns running
	reqs    chan hostCall
	free    chan chan struct{} // fresh completion channels, made outside
}

type hostCall struct {
	f    func()
	done chan struct{}
}

func startHost(t *testing.T) *host {
	h := &host{reqs: make(chan hostCall), free: make(chan chan struct{})}
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case c := <-h.reqs:
				go func() { c.f(); close(c.done) }()
			case <-stop:
				return
			}
		}
	}()
	go func() {
		for {
			select {
			case h.free <- make(chan struct{}):
			case <-stop:
				return
			}
		}
	}()
	t.Cleanup(func() { close(stop) })
	return h
}

// run runs f on a host goroutine and waits for it (not durably).
func (h *host) run(f func()) {
	done := <-h.free
	h.reqs <- hostCall{f, done}
	<-done
}

func (h *host) spawn(spec clirunner.Spec) (process, error) {
	var p *clirunner.Process
	var err error
	b := &bridge{h: h, pending: map[string]bool{}}
	h.run(func() {
		b.notify = make(chan struct{}, 1)
		p, err = clirunner.Start(spec)
		if err == nil {
			b.p = p
			go b.pumpOut()
			go b.watchdog()
		}
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// bridge is the process as the adapter inside the bubble sees it.
type bridge struct {
	h *host
	p *clirunner.Process

	mu           sync.Mutex
	buf          []byte
	eof          bool
	pending      map[string]bool // user uuids and control request IDs the CLI owes an answer
	interrupting bool            // an interrupt was written and its Turn's result is owed
	lastOut      time.Time       // real time of the last stdout line (host clock)
	notify       chan struct{}   // created outside the bubble: a non-durable wake-up
	stopping     bool
}

func (b *bridge) Pid() int { return b.p.Pid() }

func (b *bridge) Stdin() io.WriteCloser { return bridgeWriter{b} }

func (b *bridge) Stdout() io.Reader { return bridgeReader{b} }

func (b *bridge) Stop(ctx context.Context) error {
	var err error
	b.h.run(func() { err = b.p.Stop(context.Background()) })
	return err
}

func (b *bridge) Wait(ctx context.Context) error {
	var err error
	b.h.run(func() { err = b.p.Wait(context.Background()) })
	return err
}

type bridgeWriter struct{ b *bridge }

// Write notes what the CLI now owes (one JSON line per write) and writes.
func (w bridgeWriter) Write(p []byte) (int, error) {
	var m struct {
		Type      string `json:"type"`
		UUID      string `json:"uuid"`
		RequestID string `json:"request_id"`
		Request   struct {
			Subtype string `json:"subtype"`
		} `json:"request"`
	}
	if json.Unmarshal(p, &m) == nil {
		w.b.mu.Lock()
		switch m.Type {
		case typeUser:
			w.b.pending[m.UUID] = true
		case typeControlRequest:
			w.b.pending[m.RequestID] = true
			w.b.interrupting = w.b.interrupting || m.Request.Subtype == "interrupt"
		}
		w.b.lastOut = time.Time{}
		w.b.mu.Unlock()
	}
	var n int
	var err error
	w.b.h.run(func() { n, err = w.b.p.Stdin().Write(p) })
	return n, err
}

func (w bridgeWriter) Close() error {
	var err error
	w.b.h.run(func() { err = w.b.p.Stdin().Close() })
	return err
}

// pumpOut (host) reads the CLI's stdout, settles what it answers and
// hands the lines to the bubble.
func (b *bridge) pumpOut() {
	sc := bufio.NewScanner(b.p.Stdout())
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var m outMessage
		_ = json.Unmarshal(sc.Bytes(), &m)
		b.mu.Lock()
		switch m.Type {
		case typeResult:
			b.interrupting = false
			if len(m.UserMessageUUIDs) == 0 {
				clear(b.pending)
			}
			for _, u := range m.UserMessageUUIDs {
				delete(b.pending, u)
			}
		case typeCommandLifecycle:
			if m.State == lifecycleCancelled {
				delete(b.pending, m.CommandUUID)
			}
		case typeControlResponse:
			var r controlResponse
			_ = json.Unmarshal(m.Response, &r)
			delete(b.pending, r.RequestID)
		}
		if len(b.pending) == 0 {
			// Nothing owed: an interrupt that cancelled its input before
			// it ran has no result.
			b.interrupting = false
		}
		b.buf = append(append(b.buf, sc.Bytes()...), '\n')
		b.lastOut = time.Now()
		b.mu.Unlock()
		b.wake()
	}
	_, _ = io.Copy(io.Discard, b.p.Stdout())
	b.mu.Lock()
	b.eof = true
	b.mu.Unlock()
	b.wake()
}

// watchdog (host) forgets what the CLI owes once it was silent for a
// while (an answer that never comes must not stop virtual time forever).
func (b *bridge) watchdog() {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		b.mu.Lock()
		if b.lastOut.IsZero() {
			b.lastOut = time.Now()
		}
		if len(b.pending) > 0 && time.Since(b.lastOut) > 10*time.Second {
			clear(b.pending)
		}
		eof := b.eof
		b.mu.Unlock()
		b.wake()
		if eof {
			return
		}
	}
}

func (b *bridge) wake() {
	select {
	case b.notify <- struct{}{}:
	default:
	}
}

// busy reports whether the CLI owes an answer it is working on: a held
// native turn owes nothing until it is interrupted (virtual time must
// move for the workload to steer or cancel it); b.mu is held.
func (b *bridge) busy() bool {
	if len(b.pending) == 0 {
		return false
	}
	return b.interrupting || !b.h.holding()
}

type bridgeReader struct{ b *bridge }

// idlePoll is the virtual-time poll of an idle CLI's stdout.
const idlePoll = 50 * time.Millisecond

func (r bridgeReader) Read(p []byte) (int, error) {
	b := r.b
	b.mu.Lock()
	for {
		if len(b.buf) > 0 {
			n := copy(p, b.buf)
			b.buf = b.buf[n:]
			b.mu.Unlock()
			return n, nil
		}
		if b.eof {
			b.mu.Unlock()
			return 0, io.EOF
		}
		if b.busy() {
			b.mu.Unlock()
			<-b.notify // the CLI owes an answer: virtual time stands still
			b.mu.Lock()
			continue
		}
		// Idle: a durable wait (nothing outside the bubble may wake one),
		// so virtual time moves; late output is read at the next poll.
		b.mu.Unlock()
		time.Sleep(idlePoll)
		b.mu.Lock()
	}
}

type tlog struct{ t *testing.T }

func (l tlog) Write(p []byte) (int, error) { l.t.Logf("%s", p); return len(p), nil }

func logWriter(t *testing.T) io.Writer { return tlog{t} }
