package server_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/wire"
)

// nopConn is a connection whose frames go nowhere.
type nopConn struct{}

func (nopConn) Send([]byte, time.Duration) bool { return true }
func (nopConn) Close(int, string)               {}

// heartbeatFrom encodes a heartbeat whose daemon_version is v.
func heartbeatFrom(v string) []byte {
	b, err := wire.Encode(wire.Frame{Payload: wire.Heartbeat{TS: 1, DaemonVersion: v,
		SupportedAgentKinds: []wire.SupportedAgentKind{{Kind: scripted.Kind, Available: true, Capabilities: scripted.Caps()}}}})
	if err != nil {
		panic(err)
	}
	return b
}

// TestInboundQueuesFramesInOrderWithBackpressure: while the loop is busy,
// a connection's frames wait in its Inbound (up to InboundFramesMax; the
// next one blocks its reader); once the loop is free they are all stepped
// in read order within one batch, one commit.
func TestInboundQueuesFramesInOrderWithBackpressure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		back := server.NewMemory()
		s, err := server.New(back, server.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		ran := make(chan error, 1)
		go func() { ran <- s.Run(ctx) }()
		defer func() { cancel(); <-ran }()
		id, err := s.Open(ctx, "d1", nopConn{})
		if err != nil {
			t.Fatal(err)
		}
		in := s.Inbound(id)
		release := make(chan struct{})
		busy := make(chan struct{})
		go func() { _ = s.Query(ctx, func(server.View) { close(busy); <-release }) }()
		<-busy
		for i := range server.InboundFramesMax {
			if err := in.Received(ctx, heartbeatFrom(fmt.Sprint("v", i))); err != nil {
				t.Fatal(err)
			}
		}
		last := make(chan error, 1)
		go func() { last <- in.Received(ctx, heartbeatFrom("last")) }()
		synctest.Wait()
		select {
		case err := <-last:
			t.Fatalf("frame %d was queued while %d waited (err %v)", server.InboundFramesMax+1, server.InboundFramesMax, err)
		default:
		}
		commits := back.Commits()
		close(release)
		if err := <-last; err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		var version string
		_ = s.Query(ctx, func(v server.View) {
			if hb := v.Heartbeat(id); hb != nil {
				version = hb.DaemonVersion
			}
		})
		if version != "last" {
			t.Fatalf("last heartbeat stepped: %q, want %q", version, "last")
		}
		if n := back.Commits() - commits; n > 3 {
			t.Fatalf("%d commits for %d queued frames: they were not stepped together", n, server.InboundFramesMax+1)
		}
	})
}
