package world

import (
	"strconv"

	"github.com/turnstile-sim/turnstile/core"
)

// drawHarnessConfig gives every other Agent a harness_config, which Core
// must pass on in agent_options (the prepare_configuration oracle). It
// follows the Session's index, so no random draw is spent on it.
func drawHarnessConfig(a *core.AgentConfig, i int) {
	if i%2 == 0 {
		a.HarnessConfig = []byte(`{"profile":"sim-` + strconv.Itoa(i) + `","sandbox":true}`)
	}
}
