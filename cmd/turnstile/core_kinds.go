package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/core/engine"
)

// Errors of Core's Harness kinds.
var (
	// ErrCoreKinds: a -kinds entry is blank, listed twice, or has no
	// profile (neither built in nor in -engine-profiles).
	ErrCoreKinds = errors.New("-kinds lists comma-separated kinds, each once, of the built-in catalog or of -engine-profiles")
	// ErrEngineProfiles: the -engine-profiles file is unreadable, invalid,
	// or redefines a built-in kind.
	ErrEngineProfiles = errors.New("-engine-profiles")
)

// corePolicy is Core's engine Policy: the profiles of the enabled Harness
// kinds, and nothing else. Profiles come from the built-in catalog (every
// Harness kind Turnstile ships) and from the operator's profile file,
// whose every profile names every operation (engine.ParseProfiles). list
// is -kinds: empty enables the real Harnesses, every built-in kind but
// the synthetic test fixture, and every kind of the profile file; the
// synthetic kind is enabled only when listed. It returns the policy and
// the enabled kinds, sorted.
func corePolicy(list, profilesFile string) (*engine.Policy, []string, error) {
	builtin := engine.Builtin()
	var profiles []engine.Profile
	for _, k := range builtin.Kinds() {
		p, _ := builtin.Lookup(k)
		profiles = append(profiles, p)
	}
	var fileKinds []string
	if profilesFile != "" {
		data, err := os.ReadFile(profilesFile)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %w", ErrEngineProfiles, err)
		}
		extra, err := engine.ParseProfiles(data)
		if err != nil {
			return nil, nil, fmt.Errorf("%w %s: %w", ErrEngineProfiles, profilesFile, err)
		}
		for _, p := range extra {
			if _, ok := builtin.Lookup(p.Kind); ok {
				return nil, nil, fmt.Errorf("%w %s: kind %q is built in; its profile cannot be replaced", ErrEngineProfiles, profilesFile, p.Kind)
			}
			fileKinds = append(fileKinds, p.Kind)
		}
		profiles = append(profiles, extra...)
	}
	var enabled []string
	if strings.TrimSpace(list) == "" {
		for _, k := range builtin.Kinds() {
			if k != synthetic.Kind {
				enabled = append(enabled, k)
			}
		}
		enabled = append(enabled, fileKinds...)
	} else {
		for _, k := range strings.Split(list, ",") {
			k = strings.TrimSpace(k)
			if k == "" || slices.Contains(enabled, k) {
				return nil, nil, fmt.Errorf("%w: %q", ErrCoreKinds, k)
			}
			enabled = append(enabled, k)
		}
	}
	all := engine.NewCatalog(profiles...)
	c, err := all.Only(enabled)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrCoreKinds, err)
	}
	p := engine.For(c)
	return &p, c.Kinds(), nil
}
