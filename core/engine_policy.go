package core

import (
	"fmt"

	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/wire"
)

// ErrEngineUnqualified: the engine profile catalog does not qualify the
// Session's kind, placement or a requested operation (or the profile's
// additional validation refused it). Nothing durable changed.
var ErrEngineUnqualified = fmt.Errorf("core: engine not qualified for the request")

// engineRequest is the public view of a frozen agent configuration that
// the engine policy qualifies.
func engineRequest(a AgentConfig) engine.Request {
	return engine.Request{
		Kind:                           a.Kind,
		Placement:                      engine.Placement(a.Environment),
		Model:                          a.Model,
		ModelProvider:                  a.ModelProvider,
		HarnessConfig:                  a.HarnessConfig,
		TextVerbosity:                  a.TextVerbosity,
		StructuredOutput:               a.OutputSchema != nil,
		FunctionTools:                  a.FunctionTools,
		ToolSearch:                     a.ToolSearch,
		FunctionResultImages:           a.FunctionResultImages,
		DisableProgrammaticToolCalling: a.DisableProgrammaticToolCalling,
		MultiAgent:                     a.MultiAgent,
		MCPServers:                     a.MCPServers,
	}
}

// policy is the configured Policy, or the built-in catalog's.
func (m *Machine) policy() engine.Policy {
	if m.cfg.Policy == nil {
		return engine.Policy{}
	}
	return *m.cfg.Policy
}

// admitAgent is the API admission of a new Session against the engine
// policy, after the configuration is frozen (MCP origins included).
func (m *Machine) admitAgent(a AgentConfig) error {
	if err := m.policy().Admit(engineRequest(a)); err != nil {
		return fmt.Errorf("%w: %w", ErrEngineUnqualified, err)
	}
	return nil
}

// admitInput refuses an image input when the engine's profile does not
// qualify message images.
func (m *Machine) admitInput(s *session, in wire.MessageInput) error {
	if !in.HasImages() {
		return nil
	}
	r := engineRequest(s.rec.Agent)
	r.MessageImages = true
	if err := m.policy().Admit(r); err != nil {
		return fmt.Errorf("%w: %w", ErrEngineUnqualified, err)
	}
	return nil
}

// admitResultImages refuses a function result carrying images when the
// engine's profile does not qualify function result images, whatever the
// Runtime declares: the profile qualifies a public operation, the Runtime
// only claims what it installed (runtime-harness 服务 profile 对公共组合进行
// 资格认定，Runtime 宣称已安装的组合; Runtime 注册不会授予 Core 资格).
func (m *Machine) admitResultImages(s *session) error {
	r := engineRequest(s.rec.Agent)
	r.FunctionResultImages = true
	if err := m.policy().Admit(r); err != nil {
		return fmt.Errorf("%w: %w", ErrEngineUnqualified, err)
	}
	return nil
}

// engineProfile is the controls the policy's profile declares for kind,
// read by device selection and by the final check alike.
func (m *Machine) engineProfile(kind string) EngineProfile {
	c := m.policy().Controls(kind)
	return EngineProfile{WebSearchControl: c.WebSearchControl, TextVerbosity: c.TextVerbosity}
}

// unqualified says why the engine policy no longer qualifies s's kind and
// placement, or "" when it does. Admission checked both; the policy is
// checked again at dispatch (device selection and the final check before
// a Turn is claimed), since the Core that dispatches may run with another
// policy than the one that admitted the Session (an operator who disabled
// the kind, then restarted Core).
//
// A Policy is immutable and so are the Session's kind and environment
// (its Agent configuration is frozen at admission): the Session keeps the
// answer with the Policy it read, and reads again only under another one.
func (m *Machine) unqualified(s *session) string {
	if !s.whyRead || s.whyPolicy != m.cfg.Policy {
		s.why, s.whyPolicy, s.whyRead = m.qualification(s.rec.Agent), m.cfg.Policy, true
	}
	return s.why
}

// qualification is unqualified's answer for the Agent configuration a.
func (m *Machine) qualification(a AgentConfig) string {
	if m.policy().Qualified(a.Kind, engine.Placement(a.Environment)) {
		return ""
	}
	return fmt.Sprintf("engine_unqualified: the engine policy does not qualify kind %s with environment %s", a.Kind, a.Environment)
}
