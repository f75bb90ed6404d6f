package check

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/turnstile-sim/turnstile/wire"
)

func TestAgentOptionKeysSorted(t *testing.T) {
	if !slices.IsSorted(agentOptionKeys[:]) {
		t.Fatalf("agentOptionKeys %v are not in ascending order", agentOptionKeys)
	}
}

// agentOptionsMismatchByMap is the rule as a map of wanted values walked
// in sorted key order: agentOptionsMismatch must name the same findings,
// in the same order.
func agentOptionsMismatchByMap(spec SessionSpec, opts map[string]json.RawMessage) []string {
	want := map[string][]byte{
		wire.AgentOptionModel:        jsonText(spec.Model),
		wire.AgentOptionSystemPrompt: jsonText(spec.SystemPrompt),
	}
	if spec.ModelProvider != "" {
		want[wire.AgentOptionModelProvider] = jsonText(spec.ModelProvider)
	}
	if spec.HarnessConfig != nil {
		want[wire.AgentOptionHarnessConfig] = spec.HarnessConfig
	}
	var bad []string
	for _, key := range sortedKeys(opts) {
		if _, ok := want[key]; !ok {
			bad = append(bad, fmt.Sprintf("agent_options carries %q", key))
		}
	}
	for _, key := range sortedKeys(want) {
		got, ok := opts[key]
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("agent_options lacks %q", key))
		case !sameJSON(got, want[key]):
			bad = append(bad, fmt.Sprintf("agent_options %q is %s, want %s", key, got, want[key]))
		}
	}
	return bad
}

func TestAgentOptionsMismatchProperty(t *testing.T) {
	values := []string{"", "m", "other", "a b"}
	raws := []string{`"m"`, `"other"`, ` "m" `, `"a b"`, `""`, `{"profile":"p"}`, `{ "profile" : "p" }`, `{`, `null`}
	keys := append(agentOptionKeys[:], "temperature", "")
	rapid.Check(t, func(t *rapid.T) {
		spec := SessionSpec{Model: rapid.SampledFrom(values).Draw(t, "model"),
			SystemPrompt:  rapid.SampledFrom(values).Draw(t, "prompt"),
			ModelProvider: rapid.SampledFrom(values).Draw(t, "provider")}
		if rapid.Bool().Draw(t, "harness") {
			spec.HarnessConfig = []byte(rapid.SampledFrom(raws).Draw(t, "harness_config"))
		}
		var opts map[string]json.RawMessage
		if rapid.Bool().Draw(t, "opts") {
			opts = map[string]json.RawMessage{}
			for _, k := range rapid.SliceOfDistinct(rapid.SampledFrom(keys), func(s string) string { return s }).Draw(t, "keys") {
				opts[k] = json.RawMessage(rapid.SampledFrom(raws).Draw(t, "value"))
			}
		}
		got, want := agentOptionsMismatch(spec, opts), agentOptionsMismatchByMap(spec, opts)
		if !slices.Equal(got, want) {
			t.Fatalf("got %q\nwant %q", got, want)
		}
	})
}
