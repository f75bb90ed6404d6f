package daemon_test

import (
	"fmt"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/wire"
)

// A shell feeds events with the current instant and runs the effects in
// order. Here: a connection comes up, Core asks for a preparation, and the
// native preparation succeeds.
func Example() {
	caps := wire.AllCapabilities(wire.CapabilityUnsupported)
	caps.Preparation = wire.CapabilitySupported
	caps.EnvironmentNone = wire.CapabilitySupported
	m := daemon.New(daemon.Config{
		Kinds:         []daemon.KindConfig{{Kind: "contract", Available: true, Capabilities: caps}},
		DaemonVersion: "example",
	})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	show := func(effects []daemon.Effect) {
		for _, e := range effects {
			fmt.Println(e.Describe())
		}
	}
	show(m.Step(now, daemon.ConnOpened{Conn: 1}))
	prepare := wire.ExecutionPrepare{SessionID: "s1", Configuration: wire.ExecutionConfiguration{
		AgentKind: "contract", AgentStateKey: "agents-api-s1", StrictResume: true, DisableExecutionEnvironment: true,
	}}
	effects := m.Step(now, daemon.FrameReceived{Conn: 1, Frame: wire.Frame{ID: "prep-1", Payload: prepare}})
	show(effects)
	call := effects[len(effects)-1].(daemon.NativeCall)
	show(m.Step(now.Add(time.Second), daemon.NativeResult{Call: call.Call, Result: daemon.PrepareResult{}}))
	// Output:
	// send gen=1 heartbeat ts=1767225600 daemon_version=example supported_agent_kinds=[{kind=contract available=true capabilities=2/30 supported}]
	// set-timer heartbeat/g1 at=2026-01-01T00:00:15Z
	// set-timer expiry/h-1 at=2026-01-01T00:05:00Z
	// send gen=1 preparation_status id=prep-1 executor_id=ex-1 handle=h-1 revision=1 state=preparing expires_at=1767225900000
	// native-call c-1 prepare executor=ex-1 kind=contract session=s1 fp=8bc67574fe57a9b5
	// send gen=1 preparation_status id=prep-1 executor_id=ex-1 handle=h-1 revision=2 state=ready expires_at=1767225900000
}
