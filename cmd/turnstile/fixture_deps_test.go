package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryLinksNoEngineFixture: the production binary never links the
// engine test fixture (core/engine/enginetest), so no fixture profile
// can qualify a kind in a real Core.
func TestBinaryLinksNoEngineFixture(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 100 || !strings.Contains(string(out), "github.com/turnstile-sim/turnstile/core/engine\n") {
		t.Fatalf("go list -deps listed %d packages without core/engine: the check is broken", len(deps))
	}
	for _, d := range deps {
		if strings.HasSuffix(d, "/core/engine/enginetest") {
			t.Fatalf("turnstile links %s", d)
		}
	}
}
