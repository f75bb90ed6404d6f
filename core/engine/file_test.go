package engine_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core/engine"
)

const fileProfile = `{"kind":"contract","label":"Contract","capabilities":{"web_search_control":false,"text_verbosity":false,
"structured_output":true,"message_images":true,"function_tools":true,"tool_search":true,"function_result_images":true,
"programmatic_tool_calling_disable":true,"subagents":true,"mcp_required":true},
"placements":["none","self_hosted"],"mcp_origins":["service","environment"],"mcp_bearer":true,
"configuration_validation":"common_validation_only","tools_validation":"common_validation_only",
"function_result_validation":"common_validation_only"}`

func TestParseProfilesNamesEveryOperation(t *testing.T) {
	ps, err := engine.ParseProfiles([]byte(`{"profiles":[` + fileProfile + `]}`))
	require.NoError(t, err)
	require.Truef(t, len(ps) == 1 &&
		ps[0].Kind == "contract" &&
		ps[0].Capabilities.FunctionTools.IsSupported() &&
		!ps[0].Capabilities.WebSearchControl.IsSupported() &&
		ps[0].Supports(engine.PlacementSelfHosted) &&
		!ps[0].Supports(engine.PlacementOpenAIHosted) &&
		ps[0].FunctionResultValidation == engine.CommonValidationOnly, "parsed %+v", ps)
	engine.NewCatalog(ps...) // a parsed profile is a valid catalog entry
}

func TestParseProfilesRefusals(t *testing.T) {
	drop := func(key string) string {
		i := strings.Index(fileProfile, `"`+key+`":`)
		j := strings.IndexAny(fileProfile[i:], ",}")
		return fileProfile[:i] + fileProfile[i+j+1:]
	}
	cases := []struct{ name, file, want string }{
		{"not json", `{`, "not a JSON object"},
		{"no profiles", `{}`, "profiles: missing"},
		{"empty profiles", `{"profiles":[]}`, "profiles: want a non-empty array"},
		{"unknown top key", `{"profiles":[` + fileProfile + `],"x":1}`, "x: unknown field"},
		{"missing capability", `{"profiles":[` + drop("subagents") + `]}`, "profiles[0].capabilities.subagents: missing"},
		{"missing field", `{"profiles":[` + drop("mcp_bearer") + `]}`, "profiles[0].mcp_bearer: missing"},
		{"unknown field", `{"profiles":[` + strings.Replace(fileProfile, `"kind"`, `"extra":1,"kind"`, 1) + `]}`, "profiles[0].extra: unknown field"},
		{"capability not bool", `{"profiles":[` + strings.Replace(fileProfile, `"subagents":true`, `"subagents":"yes"`, 1) + `]}`, "capabilities.subagents: want true or false"},
		{"additional validation", `{"profiles":[` + strings.Replace(fileProfile, `"tools_validation":"common_validation_only"`, `"tools_validation":"additional_validation"`, 1) + `]}`, "tools_validation: want \"common_validation_only\""},
		{"unknown placement", `{"profiles":[` + strings.Replace(fileProfile, `"self_hosted"`, `"moon"`, 1) + `]}`, "Placements[1]: unknown placement"},
		{"duplicate kind", `{"profiles":[` + fileProfile + `,` + fileProfile + `]}`, "duplicates profiles[0]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := engine.ParseProfiles([]byte(c.file))
			require.ErrorIsf(t, err, engine.ErrProfileFile, "err %v, want ErrProfileFile with %q", err, c.want)
			require.Containsf(t, err.Error(), c.want, "err %v, want ErrProfileFile with %q", err, c.want)
		})
	}
}

func TestCatalogOnly(t *testing.T) {
	c, err := engine.Builtin().Only([]string{"codex", "claude"})
	require.NoError(t, err)
	if got := strings.Join(c.Kinds(), ","); got != "claude,codex" {
		require.Fail(t, fmt.Sprintf("kinds %s", got))
	}
	if _, err := engine.Builtin().Only([]string{"codex", "nonesuch"}); !errors.Is(err, engine.ErrUnknownEngine) || !strings.Contains(err.Error(), "nonesuch") {
		require.Fail(t, fmt.Sprintf("err %v", err))
	}
	if _, err := engine.Builtin().Only([]string{"codex", "codex"}); !errors.Is(err, engine.ErrInvalidDeclaration) {
		require.Fail(t, fmt.Sprintf("duplicate: err %v", err))
	}
}
