package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/daemon"
)

// ErrRegistry reports a startup registry the daemon refuses to start
// with; the message names the kind and the offending field.
var ErrRegistry = errors.New("runner: invalid adapter registry")

// Install discovers and registers every declaration whose kind is in
// enabled (all of them when enabled is nil), in order, and returns the
// registry and the machine's kind declarations. Anything invalid — an
// unknown or repeated enabled kind, a declaration or a discovered
// descriptor that breaks a rule — refuses the whole registry, naming the
// field, so the daemon never heartbeats a partial or wrong declaration.
func Install(ctx context.Context, decls []agent.Declaration, enabled []string, profile map[string]string, diag io.Writer) (*agent.Registry, []daemon.KindConfig, error) {
	if err := checkEnabled(decls, enabled); err != nil {
		return nil, nil, err
	}
	reg := &agent.Registry{}
	for _, d := range decls {
		if enabled != nil && !slices.Contains(enabled, d.Kind) {
			continue
		}
		if err := d.Validate(); err != nil {
			return nil, nil, fmt.Errorf("%w: kind %q: %w", ErrRegistry, d.Kind, err)
		}
		rt, err := d.Discover(ctx, profile, diag)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: kind %q: discovery: %w", ErrRegistry, d.Kind, err)
		}
		if rt == nil {
			return nil, nil, fmt.Errorf("%w: kind %q is enabled but not configured", ErrRegistry, d.Kind)
		}
		if err := reg.Register(d, rt); err != nil {
			return nil, nil, fmt.Errorf("%w: kind %q: %w", ErrRegistry, d.Kind, err)
		}
	}
	kinds := KindConfigs(reg)
	if err := (daemon.Config{Kinds: kinds}).Validate(); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrRegistry, err)
	}
	return reg, kinds, nil
}

func checkEnabled(decls []agent.Declaration, enabled []string) error {
	if enabled != nil && len(enabled) == 0 {
		return fmt.Errorf("%w: kinds: no kind enabled", ErrRegistry)
	}
	for i, k := range enabled {
		if slices.Index(enabled, k) != i {
			return fmt.Errorf("%w: kinds: %q enabled twice", ErrRegistry, k)
		}
		if !slices.ContainsFunc(decls, func(d agent.Declaration) bool { return d.Kind == k }) {
			return fmt.Errorf("%w: kinds: %q is not a kind this daemon knows", ErrRegistry, k)
		}
	}
	return nil
}

// KindConfigs renders the registry's descriptors as the machine's kind
// declarations (what the heartbeat carries).
func KindConfigs(reg *agent.Registry) []daemon.KindConfig {
	var out []daemon.KindConfig
	for _, k := range reg.Kinds() {
		out = append(out, daemon.KindConfig{Kind: k.Kind, Version: k.Version, Available: k.Available, Capabilities: k.Capabilities})
	}
	return out
}
