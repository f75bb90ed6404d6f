// Package coreside plays a scenario against Core's production shell: the
// real core/gateway and core/server over core.Machine and an in-memory
// backend, reached by a scripted Runtime (conform.RuntimePeer: bootstrap,
// HTTP upgrade, frames, close codes) on net.Pipe. core-state and the
// other Core-only steps reach the machine through the server
// (coreapi.Events). Run it inside a testing/synctest bubble: every wait
// is fake time. It never imports the daemon.
package coreside

import (
	"context"
	"crypto/sha256"
	"net/http"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/internal/pipenet"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/scenarios/conform"
	"github.com/turnstile-sim/turnstile/scenarios/coreapi"
)

// Device and Credential are the scripted Runtime's identity (§7).
const (
	Device     = "runtime"
	Credential = "synthetic-contract-credential"
	base       = "http://core.test"
)

// Runner drives a gateway for the scenario player. Play it from the
// bubble's test goroutine.
type Runner struct {
	scenarios.Log
	*coreapi.Steps
	*conform.RuntimePeer
	s      *server.Server
	hc     *http.Client
	hs     *http.Server
	cancel context.CancelFunc
	ran    chan error
	ws     chan wsAnswer // the latest workspace call, not yet answered
	wsDone *wsAnswer     // its answer
}

// New starts a server and its gateway with the scripted Runtime's device
// registered.
func New(cfg core.Config) (*Runner, error) {
	back := server.NewMemory()
	if err := back.AddDevice(Device, sha256.Sum256([]byte(Credential)), time.Now()); err != nil {
		return nil, err
	}
	s, err := server.New(back, server.Options{Config: cfg})
	if err != nil {
		return nil, err
	}
	gw, err := gateway.New(s, gateway.Options{PublicURL: base})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	gw.Register(mux)
	l := pipenet.New()
	r := &Runner{Log: scenarios.Log{Name: "coreside"}, s: s,
		hs: &http.Server{Handler: mux}, ran: make(chan error, 1),
		hc: &http.Client{Transport: &http.Transport{DialContext: l.Dial}}}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	r.Steps = coreapi.NewSteps(&r.Log, coreapi.Events(r, Device))
	r.RuntimePeer = conform.NewRuntimePeer(&r.Log, conform.CoreTarget{URL: base, Device: Device, Credential: Credential, HTTP: r.hc},
		conform.Options{FrameTimeout: time.Hour}, synctest.Wait)
	go func() { r.ran <- s.Run(ctx) }()
	go r.hs.Serve(l)
	return r, nil
}

// Close stops the server and every connection.
func (r *Runner) Close() {
	r.RuntimePeer.Close()
	r.cancel()
	<-r.ran
	r.hs.Close()
	r.hc.CloseIdleConnections()
	synctest.Wait()
}

// VersionRefused checks the refused upgrade and that Core registered no
// connection.
func (r *Runner) VersionRefused(args map[string]string) {
	v, ok := r.RefusedUpgrade(args)
	if !ok {
		return
	}
	err := r.s.Query(context.Background(), func(view server.View) {
		for _, d := range view.Machine().Devices() {
			if d.Conn != 0 {
				r.Failf("version %q: device %s registered on %s", v, d.Device, d.Conn)
			}
		}
	})
	if err != nil {
		r.Failf("version %q: reading Core: %v", v, err)
	}
}
