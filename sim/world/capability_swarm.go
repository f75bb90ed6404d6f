package world

import (
	"math/rand/v2"

	"github.com/turnstile-sim/turnstile/wire"
)

// capabilitySwarm varies, per device, the declarations the admission rules
// and the execution_prepare table read one by one, from its own random
// stream (every other stream keeps its draws). drawCaps drops optional
// capabilities together by chance only; here, in half of the seeds, each
// of these moves on its own on devices other than the first (and on the
// first too in a quarter of those seeds):
//
//   - mcp_http_tools, mcp_http_required and mcp_http_bearer_auth, each
//     independently (a server needs the first; a required server, a
//     bearer token the others: wire reference §4.2);
//   - message_items apart from tool_observations (observe_messages
//     follows message_items only);
//   - function_tools apart from tool_search;
//   - workspace_output_export apart from local_environment and
//     workspace_read_preparation (hosted placements need all three);
//   - web_search_control apart from text_verbosity (each needed when the
//     engine profile declares its control).
//
// The rules judge each admission and each prepare against the
// declaration of the device that got it (frames_core.go,
// prepare_rules.go, refusal_codes.go).
type capabilitySwarm struct {
	r     *rand.Rand
	on    bool
	first bool
}

func (u *universe) drawCapabilitySwarm() {
	r := u.w.Rand("capability-swarm")
	u.proj.capSwarm = &capabilitySwarm{r: r, on: r.IntN(2) == 0, first: r.IntN(4) == 0}
}

// swarmCaps applies the swarm to device i's declaration.
func (u *universe) swarmCaps(i int, c wire.AgentKindCapabilities) wire.AgentKindCapabilities {
	s := u.proj.capSwarm
	fields := []*wire.CapabilitySupport{&c.MCPHTTPTools, &c.MCPHTTPRequired, &c.MCPHTTPBearerAuth,
		&c.MessageItems, &c.FunctionTools, &c.ToolSearch, &c.WorkspaceOutputExport,
		&c.WebSearchControl, &c.TextVerbosity}
	drop := make([]bool, len(fields))
	for j := range fields {
		drop[j] = s.r.IntN(3) == 0 // always drawn: stable streams
	}
	if !s.on || (i == 0 && !s.first) {
		return c
	}
	for j, f := range fields {
		if drop[j] {
			*f = wire.CapabilityFromBool(false)
		}
	}
	return c
}
