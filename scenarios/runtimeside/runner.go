// Package runtimeside plays a scenario against the Runtime's production
// shell: daemon/runner (daemon.Machine, the real transport and its
// reconnect policy) with the controlled Harness adapter
// (scenarios/controlled), reached by a
// scripted Core (bootstrap and WebSocket, daemon/transport/transporttest)
// on net.Pipe. Core's frames of the file are written byte for byte; the
// Runtime's frames are read off the socket and asserted in order with
// placeholder binding. Run it inside a testing/synctest bubble. It never
// imports Core.
package runtimeside

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/localworkspace"
	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/daemon/runner"
	"github.com/turnstile-sim/turnstile/daemon/transport"
	"github.com/turnstile-sim/turnstile/daemon/transport/transporttest"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/scenarios/conform"
	"github.com/turnstile-sim/turnstile/scenarios/controlled"
	"github.com/turnstile-sim/turnstile/wire"
)

// Device and Credential are the Runtime's identity (§7).
const (
	Device     = "runtime"
	Credential = "synthetic-contract-credential"
)

// Runner drives one daemon for the scenario player. Play it from the
// bubble's test goroutine.
type Runner struct {
	scenarios.Log
	*conform.CorePeer
	ctl  *controlled.Controlled
	core *transporttest.Core
	d    *runner.Daemon
	cfg  daemon.Config
	res  chan outcome
	end  *outcome // the daemon's end, once Run returned
	// inst installs runtime_prepare transfers under a temporary directory.
	inst *runner.Installer
}

// outcome is how a daemon's Run ended.
type outcome struct {
	r   runner.Result
	err error
}

// New starts the scripted Core and a daemon configured as the scenario's
// first heartbeat declares.
func New(sc *scenarios.Scenario) (*Runner, error) {
	hb, _, err := sc.Declaration()
	if err != nil {
		return nil, err
	}
	cfg := daemon.Config{DaemonVersion: hb.DaemonVersion}
	for _, k := range hb.SupportedAgentKinds {
		cfg.Kinds = append(cfg.Kinds, daemon.KindConfig{Kind: k.Kind, Version: k.Version, Available: k.Available, Capabilities: k.Capabilities})
	}
	dir, err := os.MkdirTemp("", "turnstile-scenario-")
	if err != nil {
		return nil, err
	}
	r := &Runner{Log: scenarios.Log{Name: "runtimeside"}, ctl: controlled.New(), cfg: cfg,
		inst: &runner.Installer{Workspace: filepath.Join(dir, "workspace"), State: filepath.Join(dir, "state")}}
	r.ctl.SetWorkspaces(filepath.Join(dir, "workspaces"))
	r.cfg.Workspace.Writes = true
	r.core, r.d, r.res = r.start("")
	r.CorePeer = conform.NewCorePeer(&r.Log, r.core, conform.Options{FrameTimeout: time.Hour}, synctest.Wait)
	return r, nil
}

// start serves a scripted Core speaking version ("" : wire.Version) and
// runs a daemon against it.
func (r *Runner) start(version string) (*transporttest.Core, *runner.Daemon, chan outcome) {
	core := &transporttest.Core{DeviceID: Device, Credential: Credential, Version: version}
	n := core.Start()
	d := runner.New(runner.Config{
		Machine:   r.cfg,
		Executors: r.ctl,
		Client:    &transport.Client{CoreURL: transporttest.URL, DeviceID: Device, Credential: Credential, HTTP: n.HTTPClient()},
		Policy:    transport.Policy{Base: time.Second, Max: 4 * time.Second},
		Rand:      rand.New(rand.NewPCG(1, 1)),
		Installer: r.inst,
		// harness file steps write the Environments' workspaces here
		Workspaces: localworkspace.Binding{Base: filepath.Join(filepath.Dir(r.inst.Workspace), "workspaces")},
	})
	res := make(chan outcome, 1)
	go func() { res_, err := d.Run(context.Background()); res <- outcome{res_, err} }()
	return core, d, res
}

// Close stops the daemon and the scripted Core.
func (r *Runner) Close() {
	r.ctl.Finish()
	r.d.Shutdown("scenario over")
	if r.end == nil {
		<-r.res
	}
	r.core.Close()
	synctest.Wait()
	os.RemoveAll(filepath.Dir(r.inst.Workspace))
}

func (r *Runner) Advance(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}

func (r *Runner) Harness(st scenarios.Step) {
	defer synctest.Wait()
	cmd := scenarios.HarnessCommand(st)
	if err := r.ctl.Do(cmd); err != nil {
		r.Failf("%v", err)
	}
}

func (r *Runner) Settle(args map[string]string) {
	if err := r.ctl.Do(scenarios.ControlCommand{Action: "settle", Args: args}); err != nil {
		r.Failf("%v", err)
	}
	synctest.Wait()
}

// RuntimeOwned checks the counts the daemon reports as owned (idle and
// closing from the executors' states).
func (r *Runner) RuntimeOwned(args map[string]string) {
	owned, err := r.d.Owned(context.Background())
	if errors.Is(err, runner.ErrStopped) {
		// The daemon ended (a shutdown completed): what it still owned at
		// its end is in its result.
		if r.end == nil {
			o := <-r.res
			r.end = &o
		}
		owned, err = r.end.r.Owned, nil
	}
	if err != nil {
		r.Failf("owned: %v", err)
		return
	}
	have := map[string]int{}
	for _, res := range owned {
		have[res.Kind+"s"]++
		if res.Kind == "executor" {
			state, _, _ := strings.Cut(res.State, ",")
			have[state]++
		}
	}
	for _, k := range []string{"executors", "turns", "calls", "idle", "closing"} {
		if want, listed := args[k]; listed && fmt.Sprint(have[k]) != want {
			r.Failf("%s=%d, want %s (owned %v)", k, have[k], want, owned)
		}
	}
}

// VersionRefused: a Core speaking another version refuses the upgrade
// with 426; the daemon treats it as permanent and stops dialling.
func (r *Runner) VersionRefused(args map[string]string) {
	v := strings.ReplaceAll(args["version"], "$version", wire.Version)
	if v == wire.Version {
		r.Failf("version %q is this Runtime's own", v)
		return
	}
	core, d, res := r.start(v)
	defer core.Close()
	select {
	case o := <-res:
		err := o.err
		var perm *transport.PermanentError
		if !errors.As(err, &perm) || !strings.Contains(err.Error(), "incompatible_version") {
			r.Failf("Core at version %q: daemon ended with %v, want a permanent incompatible_version", v, err)
		}
	case <-time.After(time.Hour):
		d.Shutdown("still dialling")
		<-res
		r.Failf("Core at version %q: the daemon was still dialling after an hour", v)
	}
	if n := core.Dials(); n != 1 {
		r.Failf("Core at version %q: %d upgrade attempts, want 1", v, n)
	}
}
