package check

import (
	"encoding/json"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

// An Agent's harness_config reaches agent_options as it was given.
func TestPrepareConfigurationHarnessConfig(t *testing.T) {
	spec := testSpec()
	spec.HarnessConfig = []byte(`{"profile":"p","sandbox":true}`)
	cases := map[string]struct {
		option   json.RawMessage // nil: the key is left out
		fragment string          // "": clean
	}{
		"passed on":   {json.RawMessage(`{"profile":"p","sandbox":true}`), ""},
		"dropped":     {nil, `lacks "harness_config"`},
		"other value": {json.RawMessage(`{"profile":"q"}`), `"harness_config"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			l, w := prepareWorld(spec, allKind())
			cfg := goodConfig("s1")
			if tc.option != nil {
				cfg.AgentOptions[wire.AgentOptionHarnessConfig] = tc.option
			}
			w.coreSends(1, "d1", prepareFrame("p1", "s1", cfg))
			if tc.fragment == "" {
				if vs := framesOnly(l.Violations()); len(vs) > 0 {
					t.Fatalf("clean prepare judged: %v", vs)
				}
				return
			}
			wantOnly(t, l, CheckPrepareConfiguration, tc.fragment)
		})
	}
	// an Agent without one gets none
	l, w := prepareWorld(testSpec(), allKind())
	cfg := goodConfig("s1")
	cfg.AgentOptions[wire.AgentOptionHarnessConfig] = json.RawMessage(`{}`)
	w.coreSends(1, "d1", prepareFrame("p1", "s1", cfg))
	wantOnly(t, l, CheckPrepareConfiguration, `carries "harness_config"`)
}
