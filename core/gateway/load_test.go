package gateway_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/internal/testgate"
)

// TestLoadManyDaemonsWithDisconnects: 200 scripted Runtimes on loopback,
// each dropping its connection after a seeded random number of frames and
// reconnecting, carry 2,000 Turns of 100 Sessions. Every Turn must end
// (nothing lost): completed with its full stream, or failed with an honest
// unknown outcome of a lost connection; no Run is started twice; and no
// goroutine outlives the test (goleak in TestMain).
func TestLoadManyDaemonsWithDisconnects(t *testing.T) {
	testgate.Long(t) // load test
	const daemons, sessions, turnsPer, deltas = 200, 100, 20, 2
	var ids []string
	for i := range daemons {
		ids = append(ids, fmt.Sprintf("d%03d", i))
	}
	e := newEnv(t, gateway.Options{}, ids...)
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var drops atomic.Int64
	runtimes := make([]*scripted.Runtime, daemons)
	for i, id := range ids {
		runtimes[i] = &scripted.Runtime{Deltas: deltas}
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.daemonLoop(ctx, id, runtimes[i], rand.New(rand.NewPCG(uint64(i), 11)), &drops)
		}()
	}
	t0 := time.Now()
	var sids []string
	for range sessions {
		sids = append(sids, e.session())
	}
	var turns []string
	for range turnsPer {
		for _, sid := range sids {
			turns = append(turns, e.submit(sid, "load"))
		}
	}
	outcomes := map[string]int{}
	for _, tid := range turns {
		v := e.waitTurn(tid)
		switch {
		case v.State == core.TurnCompleted:
			if v.Events != deltas+1 || v.Content != "echo: load" {
				t.Fatalf("turn %s completed with %d events, content %q", tid, v.Events, v.Content)
			}
			outcomes["completed"]++
		case v.State == core.TurnFailed && (v.ErrorCode == core.CodeEventStreamIncomplete || v.ErrorCode == core.CodeDeliveryUnknown):
			outcomes[v.ErrorCode]++
		default:
			t.Fatalf("turn %s ended %s %s (%s)", tid, v.State, v.ErrorCode, v.ErrorDetail)
		}
	}
	stop()
	wg.Wait()
	starts := 0
	for _, rt := range runtimes {
		for run, n := range rt.Starts() {
			if n != 1 {
				t.Fatalf("Run %s started %d times", run, n)
			}
			starts++
		}
	}
	t.Logf("%d Turns in %v: %v; %d Runs started; %d disconnects", len(turns), time.Since(t0).Round(time.Millisecond),
		outcomes, starts, drops.Load())
	if outcomes["completed"] < len(turns)/2 {
		t.Fatalf("only %d of %d Turns completed", outcomes["completed"], len(turns))
	}
}

// A connection drops after loadBudgetMin + [0, loadBudgetSpan) frames from Core.
var loadBudgetMin, loadBudgetSpan = 4, 60

// daemonLoop connects, serves until its seeded frame budget runs out, drops
// the connection and reconnects, until ctx ends.
func (e *env) daemonLoop(ctx context.Context, id string, rt *scripted.Runtime, rng *rand.Rand, drops *atomic.Int64) {
	for ctx.Err() == nil {
		c, err := scripted.Dial(ctx, e.ts.Client(), e.wsURL(), id, credential(id), rt)
		if err != nil {
			return
		}
		budget := int64(loadBudgetMin + rng.IntN(loadBudgetSpan))
		var frames atomic.Int64
		connCtx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				_, b, err := c.WS.Read(connCtx)
				if err != nil {
					return
				}
				if frames.Add(1) > budget {
					drops.Add(1)
					return
				}
				for _, out := range rt.Respond(b) {
					if c.WS.Write(connCtx, websocket.MessageText, out) != nil {
						return
					}
				}
			}
		}()
		select {
		case <-done:
		case <-ctx.Done():
		}
		cancel()
		c.WS.CloseNow()
		<-done
	}
}
