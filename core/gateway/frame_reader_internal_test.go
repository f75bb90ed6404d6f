package gateway

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/turnstile-sim/turnstile/core/server"
)

// wsPair is a loopback WebSocket: the server end runs serve, the client
// end is returned.
func wsPair(t *testing.T, serve func(ctx context.Context, ws *websocket.Conn)) *websocket.Conn {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		ws.SetReadLimit(ReadLimitBytes)
		serve(r.Context(), ws)
	}))
	t.Cleanup(ts.Close)
	c, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(ts.URL, "http"), &websocket.DialOptions{HTTPClient: ts.Client()})
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(ReadLimitBytes)
	t.Cleanup(func() { c.CloseNow() })
	return c
}

// TestFrameReaderHandsOutIndependentCopies: every frame comes out whole,
// in its own slice that later frames never overwrite; a frame
// over the kept scratch size is read whole and its buffer is not kept;
// a frame over the 4 MiB read limit fails, and the reason says so.
func TestFrameReaderHandsOutIndependentCopies(t *testing.T) {
	sizes := []int{10, 700, scratchKeepMax + 1, 3}
	type result struct {
		frames  [][]byte
		kept    []int // scratch capacity after each frame
		lastErr error
	}
	done := make(chan result, 1)
	c := wsPair(t, func(_ context.Context, ws *websocket.Conn) {
		fr := frameReader{ws: ws}
		var res result
		for range len(sizes) + 1 {
			_, b, err := fr.next()
			if err != nil {
				res.lastErr = err
				break
			}
			res.frames = append(res.frames, b)
			res.kept = append(res.kept, fr.scratch.Cap())
		}
		done <- res
	})
	var sent [][]byte
	for i, n := range sizes {
		b := bytes.Repeat([]byte{byte('a' + i)}, n)
		sent = append(sent, b)
		if err := c.Write(context.Background(), websocket.MessageText, b); err != nil {
			t.Fatal(err)
		}
	}
	_ = c.Write(context.Background(), websocket.MessageText, make([]byte, ReadLimitBytes+1))
	res := <-done
	if len(res.frames) != len(sizes) {
		t.Fatalf("%d frames read, want %d (err %v)", len(res.frames), len(sizes), res.lastErr)
	}
	for i, b := range res.frames {
		// Compared after every later frame went through the scratch buffer.
		if !bytes.Equal(b, sent[i]) {
			t.Fatalf("frame %d: %d bytes %q..., want %d bytes of %q", i, len(b), b[:min(len(b), 8)], len(sent[i]), sent[i][:1])
		}
	}
	if res.kept[2] != 0 || res.kept[3] == 0 || res.kept[3] > scratchKeepMax {
		t.Fatalf("scratch capacity after each frame: %v (the big frame's buffer must not be kept)", res.kept)
	}
	if r := readReason(res.lastErr); r != "inbound frame over 4 MiB" {
		t.Fatalf("oversize frame: %v, reason %q", res.lastErr, r)
	}
}

// TestReadEndsWithTheRequestContext: frames are read under a context
// that is never cancelled, yet the end of the request context still
// closes the connection and ends the read loop with its own reason.
func TestReadEndsWithTheRequestContext(t *testing.T) {
	s, err := server.New(server.NewMemory(), server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stopLoop := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- s.Run(runCtx) }()
	defer func() { stopLoop(); <-ran }()
	g := &Gateway{s: s}
	reqCtx, endRequest := context.WithCancel(context.Background())
	reason := make(chan string, 1)
	c := wsPair(t, func(_ context.Context, ws *websocket.Conn) {
		reason <- g.read(reqCtx, 1, &wsConn{ws: ws})
	})
	endRequest() // the read is blocked waiting for a frame, or about to be
	if r := <-reason; r != "request context ended" {
		t.Fatalf("read ended with %q", r)
	}
	if _, _, err := c.Read(context.Background()); err == nil {
		t.Fatal("the connection stayed open after its request context ended")
	}
}
