package api_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/internal/cputime"
	"github.com/turnstile-sim/turnstile/wire"
)

// BenchmarkAgentsAPITurn runs, in each iteration, one Turn through the
// machine API (SubmitTurn, then the durable subscription to its end) and
// one through /v1 over real HTTP (the message posted, the Session's event
// stream, opened once before the loop, read to idle), each on its own
// Session of the same Core with the scripted Runtime over a real
// WebSocket. It reports both costs and their ratio (v1/machine); the API
// layer is meant to stay within 1.5 times the machine path.
//
// The /v1 client is a minimal HTTP/1.1 one on two kept-alive TCP
// connections (one for the posts, one for the event stream), so that the
// /v1 side measures Core's HTTP server and API layer, not net/http's
// client. The same Turn through net/http's client is reported too, as
// v1-nethttp-ns/turn and v1-nethttp/machine. The process's CPU time
// (user and system, every thread) spent in each of the first two is
// reported as well (v1/machine-cpu): unlike wall time, it does not grow
// with the machine's load.
func BenchmarkAgentsAPITurn(b *testing.B) {
	back := server.NewMemory()
	if err := back.AddDevice("d1", sha256.Sum256([]byte("cred-d1")), time.Now()); err != nil {
		b.Fatal(err)
	}
	s, err := server.New(back, server.Options{Config: core.Config{Policy: enginetest.OpenPolicy("contract")}})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	a, err := api.New(s, api.Options{OperatorToken: token, Keys: testKeys{}})
	if err != nil {
		b.Fatal(err)
	}
	a.Register(mux)
	gw, err := gateway.New(s, gateway.Options{PublicURL: ts.URL})
	if err != nil {
		b.Fatal(err)
	}
	gw.Register(mux)
	c, err := scripted.Dial(ctx, ts.Client(), "ws"+strings.TrimPrefix(ts.URL, "http")+gateway.WSPath, "d1", "cred-d1", &scripted.Runtime{Deltas: 2})
	if err != nil {
		b.Fatal(err)
	}
	served := make(chan struct{})
	go func() { _ = c.Serve(ctx); close(served) }()
	defer func() {
		c.WS.Close(websocket.StatusNormalClosure, "")
		<-served
		cancel()
		<-ran
		ts.Close()
	}()
	do := func(method, path, body string) string {
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+apiKey)
		resp, err := ts.Client().Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			b.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, out)
		}
		return string(out)
	}
	v1sid := strings.SplitN(strings.SplitN(do("POST", "/v1/agents/sessions", inlineSession), `"id":"`, 2)[1], `"`, 2)[0]
	rep, err := s.Call(ctx, server.Request{Event: func(cl core.CallID) core.Event {
		return core.CreateSession{Call: cl, Agent: core.AgentConfig{Kind: "contract", Model: "m", Environment: core.EnvNone}}
	}})
	if err != nil || rep.Result.Err != nil {
		b.Fatal(err, rep.Result.Err)
	}
	msid := rep.Result.Value.(core.SessionCreated).Session

	machineTurn := func() {
		rep, err := s.Call(ctx, server.Request{Event: func(cl core.CallID) core.Event {
			return core.SubmitTurn{Call: cl, Session: msid, Input: wire.TextInput("hello")}
		}})
		if err != nil || rep.Result.Err != nil {
			b.Fatal(err, rep.Result.Err)
		}
		sub, err := s.Subscribe(ctx, rep.Result.Value.(core.TurnSubmitted).Turn)
		if err != nil {
			b.Fatal(err)
		}
		defer sub.Close()
		for {
			o, err := sub.Next(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if o.Closed {
				if o.Err != nil {
					b.Fatal(o.Err)
				}
				return
			}
		}
	}
	// The /v1 client keeps its Session's event stream open, as the
	// machine path keeps its server: each Turn is a message posted, then
	// the stream read to the Session's idle.
	sctx, stopStream := context.WithCancel(ctx)
	defer stopStream()
	req, _ := http.NewRequestWithContext(sctx, "GET", ts.URL+"/v1/agents/sessions/"+v1sid+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+apiKey)
	stream, err := ts.Client().Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer stream.Body.Close()
	sc := bufio.NewScanner(stream.Body)
	idleLine := []byte("event: " + api.EvSessionIdle)
	v1Turn := func() {
		do("POST", "/v1/agents/sessions/"+v1sid+"/events", helloMessage)
		for sc.Scan() {
			if bytes.Equal(sc.Bytes(), idleLine) {
				return
			}
		}
		b.Fatal("the stream ended before idle")
	}
	rawSid := strings.SplitN(strings.SplitN(do("POST", "/v1/agents/sessions", inlineSession), `"id":"`, 2)[1], `"`, 2)[0]
	addr := strings.TrimPrefix(ts.URL, "http://")
	post, events := dialRaw(b, addr), dialRaw(b, addr)
	defer post.Close()
	defer events.Close()
	rawEvents := "/v1/agents/sessions/" + rawSid + "/events"
	rawStream := events.stream(b, rawEvents)
	rawTurn := func() {
		if st, body := post.do(b, "POST", rawEvents, helloMessage); st != 200 {
			b.Fatalf("POST %s: %d %s", rawEvents, st, body)
		}
		for rawStream.Scan() {
			if bytes.Equal(rawStream.Bytes(), idleLine) {
				return
			}
		}
		b.Fatal("the raw stream ended before idle", rawStream.Err())
	}
	machineTurn() // warm every path
	v1Turn()
	rawTurn()
	var machine, v1, nethttp, machineCPU, v1CPU time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0, c0 := time.Now(), cputime.Process()
		machineTurn()
		t1, c1 := time.Now(), cputime.Process()
		rawTurn()
		t2, c2 := time.Now(), cputime.Process()
		v1Turn()
		machine, v1, nethttp = machine+t1.Sub(t0), v1+t2.Sub(t1), nethttp+time.Since(t2)
		machineCPU, v1CPU = machineCPU+c1-c0, v1CPU+c2-c1
	}
	n := float64(b.N)
	b.ReportMetric(float64(machine.Nanoseconds())/n, "machine-ns/turn")
	b.ReportMetric(float64(v1.Nanoseconds())/n, "v1-ns/turn")
	b.ReportMetric(float64(nethttp.Nanoseconds())/n, "v1-nethttp-ns/turn")
	b.ReportMetric(float64(v1)/float64(machine), "v1/machine")
	b.ReportMetric(float64(nethttp)/float64(machine), "v1-nethttp/machine")
	if cputime.Measured {
		b.ReportMetric(float64(machineCPU.Nanoseconds())/n, "machine-cpu-ns/turn")
		b.ReportMetric(float64(v1CPU.Nanoseconds())/n, "v1-cpu-ns/turn")
		b.ReportMetric(float64(v1CPU)/float64(machineCPU), "v1/machine-cpu")
	}
}

// rawConn is a minimal HTTP/1.1 client on one kept-alive connection:
// requests carry the API key and a JSON body, answers are read by their
// Content-Length.
type rawConn struct {
	net.Conn
	r   *bufio.Reader
	req []byte
}

func dialRaw(b *testing.B, addr string) *rawConn {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	return &rawConn{Conn: c, r: bufio.NewReader(c)}
}

// send writes one request.
func (c *rawConn) send(b *testing.B, method, path, body string) {
	c.req = append(c.req[:0], method...)
	c.req = append(c.req, ' ')
	c.req = append(c.req, path...)
	c.req = append(c.req, " HTTP/1.1\r\nHost: core\r\nAuthorization: Bearer "+apiKey+"\r\nContent-Type: application/json\r\nContent-Length: "...)
	c.req = strconv.AppendInt(c.req, int64(len(body)), 10)
	c.req = append(c.req, "\r\n\r\n"...)
	c.req = append(c.req, body...)
	if _, err := c.Write(c.req); err != nil {
		b.Fatal(err)
	}
}

// head reads an answer's status line and headers: its status, its
// Content-Length (-1 when absent) and whether it is chunked.
func (c *rawConn) head(b *testing.B) (status, length int, chunked bool) {
	length = -1
	for i := 0; ; i++ {
		line, err := c.r.ReadSlice('\n')
		if err != nil {
			b.Fatal(err)
		}
		line = bytes.TrimRight(line, "\r\n")
		switch k, v, _ := bytes.Cut(line, []byte(": ")); {
		case i == 0:
			if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
				b.Fatalf("not an HTTP/1.1 status line: %q", line)
			}
			status, _ = strconv.Atoi(string(line[9:12]))
		case len(line) == 0:
			return status, length, chunked
		case bytes.EqualFold(k, []byte("Content-Length")):
			length, _ = strconv.Atoi(string(v))
		case bytes.EqualFold(k, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(v, []byte("chunked"))
		}
	}
}

// do sends a request and reads its whole answer.
func (c *rawConn) do(b *testing.B, method, path, body string) (int, []byte) {
	c.send(b, method, path, body)
	st, n, chunked := c.head(b)
	var r io.Reader = io.LimitReader(c.r, int64(n))
	if chunked {
		r = httputil.NewChunkedReader(c.r)
	} else if n < 0 {
		b.Fatalf("%s %s: an answer of unknown length", method, path)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		b.Fatal(err)
	}
	return st, out
}

// stream opens an event stream and returns a reader of its lines.
func (c *rawConn) stream(b *testing.B, path string) *bufio.Scanner {
	c.send(b, "GET", path, "")
	st, _, chunked := c.head(b)
	if st != 200 || !chunked {
		b.Fatalf("GET %s: status %d, chunked %v", path, st, chunked)
	}
	return bufio.NewScanner(httputil.NewChunkedReader(c.r))
}

// doAs sends a request with a bearer secret and wants status.
func doAs(b *testing.B, ts *httptest.Server, secret, method, path, body string, status int) string {
	req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+secret)
	resp, err := ts.Client().Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		b.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, out)
	}
	return string(out)
}
