package conform

import (
	"net"
	"net/http"
	"strings"

	"github.com/turnstile-sim/turnstile/daemon/transport/transporttest"
	"github.com/turnstile-sim/turnstile/wire"
)

// versionRefused starts the Runtime once more against a scripted Core
// speaking another version: the upgrade is refused with 426 and the
// Runtime must stop dialling (exit) after one attempt. Seen from outside
// that is the process ending after exactly one upgrade; how it reports
// the permanent incompatible_version is its own. A Runtime started
// separately cannot be started again: not checked.
func (r *rtRun) VersionRefused(args map[string]string) {
	ctx := r.ctx
	v := strings.ReplaceAll(args["version"], "$version", wire.Version)
	if v == wire.Version {
		r.failf("version %q is this protocol's own", v)
		return
	}
	if len(r.t.Command) == 0 {
		r.notf("version-refused version=%s: the Runtime was started separately and cannot be started against another Core", v)
		return
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		r.failf("version-refused: %v", err)
		return
	}
	core := &transporttest.Core{DeviceID: RuntimeDevice, Credential: RuntimeCredential, Version: v}
	srv := &http.Server{Handler: core.Handler()}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()
	defer core.Close()
	base := "http://" + l.Addr().String()
	env := rtEnv{base: base, credFile: r.env.credFile}
	p, err := startProcess(r.t.Command, env.vars(r.sc, base), r.out)
	if err != nil {
		r.failf("version-refused: %v", err)
		return
	}
	defer p.stop(r.t.Grace)
	exited, code := p.waitExit(ctx, 2*r.o.FrameTimeout)
	switch {
	case !exited:
		r.failf("Core at version %q: the Runtime was still running after %v (%d upgrade attempts)", v, 2*r.o.FrameTimeout, core.Dials())
	case core.Dials() != 1:
		r.failf("Core at version %q: %d upgrade attempts, want 1 (the Runtime exited with %d)", v, core.Dials(), code)
	case code == 0:
		r.failf("Core at version %q: the Runtime exited with status 0 after a permanent refusal, want a failure status", v)
	}
}
