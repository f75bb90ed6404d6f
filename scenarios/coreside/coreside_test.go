package coreside

import (
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/scenarios"
)

// TestScenarios plays every scenario against the real gateway.
func TestScenarios(t *testing.T) {
	files, err := scenarios.Files("../testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		sc, err := scenarios.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r, err := New(sc, core.Config{})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				for _, st := range sc.Flat() {
					for _, e := range r.Step(st) {
						t.Error(e)
					}
				}
				for _, e := range r.Finish() {
					t.Error(e)
				}
			})
		})
	}
}
