package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"

	dmachine "github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/daemon/runner"
	"github.com/turnstile-sim/turnstile/scenarios/conform"
	"github.com/turnstile-sim/turnstile/scenarios/controlled"
)

// daemonConform is the daemon's conformance mode, which `turnstile
// conform runtime` turns on through the environment: the scenario's
// declaration (TURNSTILE_CONFORM_DECLARATION) replaces the enabled
// kinds, the controlled Harness adapter serves them, and the control
// channel (TURNSTILE_CONFORM_CONTROL) drives its native behaviour.
type daemonConform struct {
	ctl     *controlled.Controlled
	control string
	version string
	kinds   []dmachine.KindConfig
}

// daemonConformFromEnv returns the conformance mode when the environment
// asks for it (nil otherwise); a declaration that does not parse refuses
// the start.
func daemonConformFromEnv() (*daemonConform, error) {
	raw, ok := os.LookupEnv(conform.EnvDeclaration)
	if !ok {
		if control, ok := os.LookupEnv(conform.EnvControl); ok {
			// a scenario in which the Runtime never declares anything (its
			// upgrade is refused): conformance mode with no kind
			return &daemonConform{ctl: controlled.New(), control: control, version: daemonVersion}, nil
		}
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.DisallowUnknownFields()
	var decl conform.Declaration
	if err := dec.Decode(&decl); err != nil {
		return nil, fmt.Errorf("%s: %w", conform.EnvDeclaration, err)
	}
	if strings.TrimSpace(decl.DaemonVersion) == "" {
		return nil, fmt.Errorf("%s: daemon_version is empty", conform.EnvDeclaration)
	}
	c := &daemonConform{ctl: controlled.New(), control: os.Getenv(conform.EnvControl), version: decl.DaemonVersion}
	for _, k := range decl.SupportedAgentKinds {
		c.kinds = append(c.kinds, dmachine.KindConfig{Kind: k.Kind, Version: k.Version, Available: k.Available, Capabilities: k.Capabilities})
	}
	return c, nil
}

// serve follows the control channel until it closes, then lets every
// native call and Turn end so that a shutdown can complete.
func (c *daemonConform) serve(ctx context.Context, d *runner.Daemon, log *slog.Logger) {
	defer c.ctl.Finish()
	if c.control == "" {
		return
	}
	owned := func(ctx context.Context) (map[string]int, error) {
		res, err := d.Owned(ctx)
		if err != nil {
			return nil, err
		}
		return controlled.OwnedCounts(res), nil
	}
	if err := c.ctl.Serve(ctx, c.control, owned); err != nil {
		log.Warn("conformance control channel unavailable", "err", err)
	}
}

// conformWorkspaces gives a conformance run without -workspaces a
// scratch directory of Environment workspaces of its own, where the
// control channel's file commands write and workspace reads look; ok
// reports that it made one (the caller removes it).
func conformWorkspaces(sh *shell, f *daemonFlags) (string, bool) {
	if f.workspaces != "" {
		return "", false
	}
	dir, err := os.MkdirTemp("", "turnstile-conform-workspaces-")
	if err != nil {
		fmt.Fprintf(sh.stderr, "turnstile daemon: conformance workspaces: %v (workspace scenarios will fail)\n", err)
		return "", false
	}
	f.workspaces = dir
	return dir, true
}
