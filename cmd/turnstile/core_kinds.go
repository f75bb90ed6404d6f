package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
)

// ErrQualifyKinds: a -qualify-kinds entry is blank or already a built-in
// kind.
var ErrQualifyKinds = errors.New("-qualify-kinds lists comma-separated kinds outside the built-in catalog")

// qualifyPolicy is Core's engine Policy: the built-in catalog (every
// Harness kind Turnstile ships), plus, for -qualify-kinds, the open
// conformance profile of each listed kind (every operation, placement and
// MCP origin qualified, no control declared), so that `turnstile conform
// core` can play the scenarios' contract kind. Empty list: nil (the
// built-in catalog alone).
func qualifyPolicy(list string) (*engine.Policy, error) {
	if list == "" {
		return nil, nil
	}
	builtin := engine.Builtin()
	var profiles []engine.Profile
	for _, k := range builtin.Kinds() {
		p, _ := builtin.Lookup(k)
		profiles = append(profiles, p)
	}
	for _, k := range strings.Split(list, ",") {
		k = strings.TrimSpace(k)
		if k == "" || slices.ContainsFunc(profiles, func(p engine.Profile) bool { return p.Kind == k }) {
			return nil, fmt.Errorf("%w: %q", ErrQualifyKinds, k)
		}
		profiles = append(profiles, enginetest.Open(k, false, false))
	}
	p := engine.For(engine.NewCatalog(profiles...))
	return &p, nil
}
