package scripted

import (
	"fmt"
	"strings"
	"sync"

	"github.com/turnstile-sim/turnstile/wire"
)

// Kind is the Harness kind the scripted Runtime declares unless its
// DeclaredKind says otherwise.
const Kind = "contract"

// Runtime answers Core's frames. Safe for concurrent use.
type Runtime struct {
	// Deltas is the number of delta frames each Run streams before done.
	Deltas int
	// Hold keeps every Run open after started until Core cancels it.
	Hold bool
	// DeclaredKind, when set, is the kind its heartbeats declare in place
	// of Kind (a Core with the built-in catalog dispatches only the kinds
	// Turnstile ships, such as "synthetic").
	DeclaredKind string
	// OnFrame, when set, sees every frame from Core before it is answered
	// (crash tests count frames to pick kill points).
	OnFrame func(frame []byte)

	mu     sync.Mutex
	starts map[string]int // Run ID -> execution_start frames seen
	runs   map[string]bool
	fences fenceLog // fencing.go
}

// Caps are the capabilities the scripted Runtime declares: what a default
// Agent with environment none needs, plus native_session_recovery (a
// Session whose Turn was interrupted before a native session ID was
// recorded needs it).
func Caps() wire.AgentKindCapabilities {
	c := wire.AllCapabilities(wire.CapabilityUnsupported)
	for _, f := range c.Fields() {
		switch f.Name {
		case "streaming", "steering", "durable_turns", "durable_input_receipts", "preparation",
			"execution_controls", "tool_observations", "environment_none", "subagent_control",
			"native_session_recovery":
			*f.Value = wire.CapabilitySupported
		}
	}
	return c
}

// Heartbeat returns an encoded heartbeat declaring Kind.
func (r *Runtime) Heartbeat(active int) []byte {
	return must(wire.Frame{Payload: wire.Heartbeat{TS: 1, ActiveRequests: active, DaemonVersion: "scripted",
		SupportedAgentKinds: []wire.SupportedAgentKind{{Kind: r.kind(), Available: true, Capabilities: Caps()}}}})
}

func (r *Runtime) kind() string {
	if r.DeclaredKind != "" {
		return r.DeclaredKind
	}
	return Kind
}

// Starts returns how many execution_start frames named each Run ID.
func (r *Runtime) Starts() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.starts))
	for k, v := range r.starts {
		out[k] = v
	}
	return out
}

func must(f wire.Frame) []byte {
	b, err := wire.Encode(f)
	if err != nil {
		panic(fmt.Sprintf("scripted: %v", err))
	}
	return b
}

func status(id string, rev uint64, state, run string) []byte {
	return must(wire.Frame{ID: id, Payload: wire.PreparationStatus{ExecutorID: "exec-" + id, Handle: "handle-" + id,
		Revision: rev, State: state, RunID: run, ExpiresAt: 1800000000000}})
}

// Respond returns the frames a Runtime sends in answer to frame, in order.
func (r *Runtime) Respond(frame []byte) [][]byte {
	if r.OnFrame != nil {
		r.OnFrame(frame)
	}
	f, err := wire.Decode(frame)
	if err != nil {
		return nil
	}
	switch p := f.Payload.(type) {
	case wire.ExecutionPrepare:
		return [][]byte{status(f.ID, 1, wire.StatePreparing, ""), status(f.ID, 2, wire.StateReady, "")}
	case wire.ExecutionStart:
		return r.start(f.ID, p)
	case wire.ExecutionRelease:
		return [][]byte{status(f.ID, 3, wire.StateReleased, "")}
	case wire.PromptCancel:
		return r.cancel(f.ID, p)
	case wire.EnvironmentQuiesce, wire.EnvironmentResume:
		return r.fence(f.ID, p)
	case wire.PromptSteer:
		return [][]byte{
			must(wire.Frame{ID: f.ID, Payload: wire.PromptSteerAck{InputID: p.InputID, Written: true}}),
			must(wire.Frame{ID: f.ID, Payload: wire.PromptSteerAck{InputID: p.InputID, Accepted: true}}),
		}
	}
	return nil
}

func (r *Runtime) start(prep string, p wire.ExecutionStart) [][]byte {
	r.mu.Lock()
	if r.starts == nil {
		r.starts, r.runs = map[string]int{}, map[string]bool{}
	}
	r.starts[p.RunID]++
	r.runs[p.RunID] = true
	r.mu.Unlock()
	out := [][]byte{status(prep, 3, wire.StateStarting, p.RunID), status(prep, 4, wire.StateStarted, p.RunID)}
	if r.Hold {
		return out
	}
	for i := 1; i <= r.Deltas; i++ {
		out = append(out, must(wire.Frame{ID: p.RunID, Payload: wire.Delta{Delta: fmt.Sprintf("d%d ", i), Sequence: uint64(i)}}))
	}
	r.mu.Lock()
	delete(r.runs, p.RunID)
	r.mu.Unlock()
	return append(out, must(wire.Frame{ID: p.RunID, Payload: wire.Done{Content: "echo: " + inputText(p.Input),
		Metadata: &wire.DoneMetadata{AgentSessionID: "native-" + p.RunID}}}))
}

func (r *Runtime) cancel(run string, p wire.PromptCancel) [][]byte {
	r.mu.Lock()
	active := r.runs[run]
	delete(r.runs, run)
	r.mu.Unlock()
	if !active {
		if p.DeliveryID == "" {
			return nil
		}
		return [][]byte{must(wire.Frame{ID: run, Payload: wire.InteractionDecisionAck{DeliveryID: p.DeliveryID, ErrorCode: "run_inactive"}})}
	}
	out := [][]byte{must(wire.Frame{ID: run, Payload: wire.Done{Content: ""}})}
	if p.DeliveryID != "" {
		out = append(out, must(wire.Frame{ID: run, Payload: wire.InteractionDecisionAck{DeliveryID: p.DeliveryID, Applied: true,
			Outcome: &wire.Done{Content: "partial", Metadata: &wire.DoneMetadata{AgentSessionID: "native-" + run}}}}))
	}
	return out
}

func inputText(in wire.MessageInput) string {
	var parts []string
	for _, m := range in {
		for _, c := range m.Content {
			if c.Text != nil {
				parts = append(parts, *c.Text)
			}
		}
	}
	return strings.Join(parts, "\n\n")
}
