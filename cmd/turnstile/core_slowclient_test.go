package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/gateway"
)

// trickle sends a request whose body never completes, one byte per tick,
// and returns Core's answer, how long it took and how many body bytes
// went out. The answer is read (blocking) on the same connection.
func trickle(t *testing.T, addr, method, path, auth string, tick time.Duration) (*http.Response, time.Duration, int) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	if _, err := fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: core\r\nAuthorization: %s\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n", method, path, auth); err != nil {
		t.Fatal(err)
	}
	sent := make(chan int, 1)
	stop := make(chan struct{})
	go func() {
		n := 0
		tk := time.NewTicker(tick)
		defer tk.Stop()
		defer func() { sent <- n }()
		for {
			if _, err := c.Write([]byte(" ")); err != nil {
				return
			}
			n++
			select {
			case <-tk.C:
			case <-stop:
				return
			}
		}
	}()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	elapsed := time.Since(start)
	close(stop)
	n := <-sent
	if err != nil {
		t.Fatalf("%s %s: no answer: %v", method, path, err)
	}
	return resp, elapsed, n
}

// A body trickled byte by byte is cut at the body read deadline on every
// API route with a body and on the bootstrap: 408 body_timeout, the
// connection closed, however steadily the bytes keep coming.
func TestSlowBodyIsCutAtTheDeadlineOnEveryRoute(t *testing.T) {
	dir, tokenFile, token, _ := setup(t)
	const deadline = 500 * time.Millisecond
	vaultKey, _ := writeVaultKey(t, t.TempDir())
	core := startCore(t, dir, tokenFile, "-body-read-timeout", deadline.String(), "-vault-key", vaultKey)
	addr := strings.TrimPrefix(core.base, "http://")
	type route struct{ method, path, auth string }
	routes := []route{{"POST", gateway.BootstrapPath, "Bearer not-checked-before-the-body"}}
	key := issueKey(t, dir)
	for _, r := range api.Routes() {
		if r.Method != "POST" && r.Method != "PUT" || strings.HasPrefix(r.Path, "/v1/agents/environments/templates") {
			continue // templates are refused whatever the body
		}
		p := r.Path
		for _, name := range []string{"session", "turn", "interaction", "call", "suspend", "agent", "vault", "credential", "environment"} {
			p = strings.ReplaceAll(p, "{"+name+"}", "x-1")
		}
		auth := "Bearer " + token
		if strings.HasPrefix(p, "/v1/") {
			auth = "Bearer " + key
		}
		routes = append(routes, route{r.Method, p, auth})
	}
	for _, r := range routes {
		t.Run(r.method+r.path, func(t *testing.T) {
			t.Parallel()
			resp, elapsed, sent := trickle(t, addr, r.method, r.path, r.auth, 50*time.Millisecond)
			body, _ := io.ReadAll(resp.Body)
			// {"error": code} on the operator routes and the bootstrap,
			// {"error": {"code": code}} on the Agents API.
			var e struct{ Error json.RawMessage }
			_ = json.Unmarshal(body, &e)
			var code string
			var nested struct{ Code string }
			if json.Unmarshal(e.Error, &code) != nil && json.Unmarshal(e.Error, &nested) == nil {
				code = nested.Code
			}
			if resp.StatusCode != http.StatusRequestTimeout || code != "body_timeout" || !resp.Close {
				t.Fatalf("%d %s (close %v), want 408 body_timeout and the connection closed", resp.StatusCode, body, resp.Close)
			}
			if elapsed < deadline || elapsed > deadline+5*time.Second {
				t.Fatalf("answered after %v, deadline %v", elapsed, deadline)
			}
			if sent < 3 {
				t.Fatalf("only %d bytes trickled: the body was not still arriving", sent)
			}
		})
	}
}

// One remote address keeps at most -conns-per-addr connections open: the
// next is closed at accept, another address is still served, and a slot
// freed by a close is taken again.
func TestConnectionsPerRemoteAddressAreLimited(t *testing.T) {
	dir, tokenFile, _, _ := setup(t)
	core := startCore(t, dir, tokenFile, "-conns-per-addr", "2")
	addr := strings.TrimPrefix(core.base, "http://")
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		held = append(held, c)
	}
	healthz := func(d *net.Dialer) error {
		c, err := d.Dial("tcp", addr)
		if err != nil {
			return err
		}
		defer c.Close()
		if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: core\r\n\r\n"); err != nil {
			return err
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("healthz %d", resp.StatusCode)
		}
		return nil
	}
	same := &net.Dialer{}
	if err := healthz(same); err == nil {
		t.Fatal("a third connection from the same address was served")
	} else if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !strings.Contains(err.Error(), "reset") {
		t.Fatalf("third connection: %v, want it closed", err)
	}
	other := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}
	if err := healthz(other); err != nil {
		t.Fatalf("another address refused: %v", err)
	}
	held[0].Close()
	var err error
	for range 200 { // until Core has seen the close (each try is a round trip)
		if err = healthz(same); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("the freed slot was never taken again: %v", err)
	}
	if !strings.Contains(core.stderr.String(), "too many open connections from this address") {
		t.Fatalf("no log line for the refusal:\n%s", core.stderr.String())
	}
}
