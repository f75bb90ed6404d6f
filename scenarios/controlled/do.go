package controlled

import (
	"fmt"
	"slices"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/wire"
)

// Do applies one harness step: a harness action, or "settle". It returns
// a named error when the step cannot apply ("owned" is the host's to
// answer and is refused here).
func (c *Controlled) Do(cmd scenarios.ControlCommand) error {
	switch cmd.Action {
	case "emit":
		t := c.live()
		if t == nil {
			return fmt.Errorf("harness emit: no live native Turn")
		}
		f, err := wire.Decode([]byte(`{"type":"` + cmd.Type + `","id":"native","payload":` + string(cmd.Payload) + `}`))
		if err != nil {
			return fmt.Errorf("harness emit: %v", err)
		}
		t.emit(f.Payload)
	case "release":
		if !c.release() {
			return fmt.Errorf("harness release: no native call is hanging")
		}
	case "apply":
		if !c.apply() {
			return fmt.Errorf("harness apply: no written input is held")
		}
	case "settle":
		return c.settleLive(cmd.Args)
	case "file":
		return c.putFile(cmd)
	default:
		if !slices.Contains(scenarios.HarnessActions, cmd.Action) || slices.Contains([]string{"emit", "release", "apply", "file"}, cmd.Action) {
			return fmt.Errorf("harness: unknown action %q", cmd.Action)
		}
		c.arm(cmd.Action)
	}
	return nil
}

// settleLive settles the oldest live Turn with the step's outcome.
func (c *Controlled) settleLive(args map[string]string) error {
	t := c.live()
	if t == nil {
		return fmt.Errorf("settle: no live native Turn")
	}
	s := agent.Reuse()
	if args["reusable"] == "false" {
		s = agent.Retire(args["reason"])
	}
	t.settle(s, agent.CancellationOutcome{Content: args["content"], NativeSessionID: args["session"]}, c.take("late-event"))
	return nil
}
