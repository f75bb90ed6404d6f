package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/localworkspace"
	"github.com/turnstile-sim/turnstile/daemon/runner"
	"github.com/turnstile-sim/turnstile/daemon/transport"
	"github.com/turnstile-sim/turnstile/internal/pipenet"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/scenarios/controlled"
)

// pipeNet is a network of net.Pipe listeners, each at its own address.
type pipeNet struct {
	mu sync.Mutex
	ls map[string]*pipenet.Listener
}

type pipeListener struct {
	*pipenet.Listener
	addr net.Addr
}

func (l pipeListener) Addr() net.Addr { return l.addr }

func (n *pipeNet) listen() (net.Listener, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: len(n.ls) + 1}
	l := pipenet.New()
	n.ls[addr.String()] = l
	return pipeListener{l, addr}, nil
}

func (n *pipeNet) client() *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		n.mu.Lock()
		l := n.ls[addr]
		n.mu.Unlock()
		if l != nil {
			return l.Dial(ctx, network, addr)
		}
		return nil, fmt.Errorf("no listener at %s", addr)
	}}}
}

// daemonProc is the Runtime's production shell in process: daemon/runner
// (daemon.Machine, the real transport and its reconnect policy) with the
// controlled Harness adapter following the control channel, configured
// from the environment a Runtime process would get.
type daemonProc struct {
	d      *runner.Daemon
	ctl    *controlled.Controlled
	cancel context.CancelFunc
	done   chan struct{}
	res    runner.Result
	err    error // Run's, once done is closed
}

func (n *pipeNet) startDaemon(env []string) (runtimeProc, error) {
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	var decl Declaration
	if raw, ok := vars[EnvDeclaration]; ok {
		if err := json.Unmarshal([]byte(raw), &decl); err != nil {
			return nil, err
		}
	}
	cred, err := os.ReadFile(vars[EnvCredential])
	if err != nil {
		return nil, err
	}
	dir, hc := vars[EnvPrepareWorkspace], n.client()
	p := &daemonProc{ctl: controlled.New(), done: make(chan struct{})}
	p.ctl.SetWorkspaces(dir + "-workspaces")
	p.ctl.HTTPClient = hc
	p.d = runner.New(runner.Config{
		Machine:    controlled.Config(decl.DaemonVersion, decl.SupportedAgentKinds),
		Executors:  p.ctl,
		Client:     &transport.Client{CoreURL: vars[EnvCoreURL], DeviceID: vars[EnvDevice], Credential: strings.TrimSpace(string(cred)), HTTP: hc},
		Policy:     transport.Policy{Base: time.Second, Max: 4 * time.Second},
		Rand:       rand.New(rand.NewPCG(1, 1)),
		Installer:  &runner.Installer{Workspace: dir, State: dir + "-state"},
		Workspaces: localworkspace.Binding{Base: dir + "-workspaces"},
	})
	var ctx context.Context
	ctx, p.cancel = context.WithCancel(context.Background())
	go func() { p.res, p.err = p.d.Run(context.Background()); close(p.done) }()
	go func() { _ = p.ctl.Serve(ctx, vars[EnvControl], p.owned); p.ctl.Finish() }()
	return p, nil
}

// owned counts what the daemon owns, or owned at its end once it stopped.
func (p *daemonProc) owned(ctx context.Context) (map[string]int, error) {
	res, err := p.d.Owned(ctx)
	if errors.Is(err, runner.ErrStopped) {
		<-p.done
		res, err = p.res.Owned, nil
	}
	if err != nil {
		return nil, err
	}
	return controlled.OwnedCounts(res), nil
}

func (p *daemonProc) stop(grace time.Duration) {
	p.ctl.Finish()
	p.d.Shutdown("scenario over")
	p.waitExit(context.Background(), grace)
	p.cancel()
}

// waitExit: a daemon that ended with an error has status 1, as the
// binary's.
func (p *daemonProc) waitExit(ctx context.Context, d time.Duration) (bool, int) {
	select {
	case <-p.done:
		if p.err != nil {
			return true, 1
		}
		return true, 0
	case <-time.After(d):
	case <-ctx.Done():
	}
	return false, 0
}

func (p *daemonProc) lines(int) string {
	select {
	case <-p.done:
		return fmt.Sprintf("ended: %v", p.err)
	default:
		return "running"
	}
}

// playRuntime plays sc with RunRuntime against the daemon in process, in
// a testing/synctest bubble.
func playRuntime(t *testing.T, sc *scenarios.Scenario) (res Result) {
	synctest.Test(t, func(t *testing.T) {
		n := &pipeNet{ls: map[string]*pipenet.Listener{}}
		l, _ := n.listen()
		rep, err := RunRuntime(context.Background(), RuntimeTarget{Listener: l, start: n.startDaemon, listen: n.listen},
			[]*scenarios.Scenario{sc}, Options{Settle: synctest.Wait})
		if err != nil || len(rep.Results) != 1 {
			t.Fatalf("%+v %v", rep, err)
		}
		res = rep.Results[0]
		l.Close()
		synctest.Wait()
	})
	return res
}
