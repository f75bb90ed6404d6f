package adaptertest

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/server"
)

// Identity of the simulated device and Core.
const (
	coreURL    = "http://core.adaptertest"
	credential = "adaptertest-device-credential"
)

// simCore is the simulated Core: core.Machine in its real loop
// (core/server) over an in-memory store, with the real gateway serving
// the Runtime routes on an in-memory network. A restart stops the loop
// and the gateway and starts them again over the same store, so the
// machine recovers through core.Restart as after a crash.
type simCore struct {
	net    *pipeNet
	back   *server.Memory
	device string

	srv      *server.Server
	hs       *http.Server
	gw       *gateway.Gateway
	listener *pipeListener
	stop     context.CancelFunc
	ran      chan error
	restarts int
	policy   *engine.Policy
}

func newSimCore(device string, policy *engine.Policy) (*simCore, error) {
	c := &simCore{net: &pipeNet{}, back: server.NewMemory(), device: device, policy: policy}
	if err := c.back.AddDevice(device, sha256.Sum256([]byte(credential)), time.Now()); err != nil {
		return nil, err
	}
	return c, c.start()
}

func (c *simCore) start() error {
	srv, err := server.New(c.back, server.Options{Config: core.Config{Policy: c.policy}})
	if err != nil {
		return err
	}
	gw, err := gateway.New(srv, gateway.Options{PublicURL: coreURL})
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	gw.Register(mux)
	ctx, cancel := context.WithCancel(context.Background())
	c.srv, c.gw, c.stop, c.ran = srv, gw, cancel, make(chan error, 1)
	c.hs = &http.Server{Handler: mux}
	c.listener = c.net.listen()
	go func() { c.ran <- srv.Run(ctx) }()
	go func() { _ = c.hs.Serve(c.listener) }()
	return nil
}

// shutdown stops the loop and the gateway; every connection closes.
func (c *simCore) shutdown() error {
	_ = c.hs.Close()
	_ = c.listener.Close()
	c.stop()
	err := <-c.ran
	c.gw.Wait(10 * time.Second)
	return err
}

// restart stops Core and starts it again over the same store.
func (c *simCore) restart() error {
	if err := c.shutdown(); err != nil {
		return fmt.Errorf("core loop: %w", err)
	}
	c.restarts++
	return c.start()
}

// call runs one API event on the current Core.
func (c *simCore) call(ctx context.Context, ev func(core.CallID) core.Event) (core.APIResult, error) {
	rep, err := c.srv.Call(ctx, server.Request{Event: ev})
	if err != nil {
		return core.APIResult{}, err
	}
	return rep.Result, rep.Result.Err
}
