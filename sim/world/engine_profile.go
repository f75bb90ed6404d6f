package world

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// simulatedPolicy qualifies the simulated Harness kinds: every operation,
// placement and MCP origin, no control declared, common validation only,
// so that the drawn device declarations alone decide what is served. It
// is the simulator's own profile, named field by field; Core's production
// catalog never holds it.
func simulatedPolicy(kinds ...string) *engine.Policy {
	yes, no := wire.CapabilitySupported, wire.CapabilityUnsupported
	ps := make([]engine.Profile, len(kinds))
	for i, k := range kinds {
		ps[i] = engine.Profile{
			Kind:  k,
			Label: "simulated " + k,
			Capabilities: engine.Capabilities{
				WebSearchControl:               no,
				TextVerbosity:                  no,
				StructuredOutput:               yes,
				MessageImages:                  yes,
				FunctionTools:                  yes,
				ToolSearch:                     yes,
				FunctionResultImages:           yes,
				ProgrammaticToolCallingDisable: yes,
				Subagents:                      yes,
				MCPRequired:                    yes,
			},
			Placements:               []engine.Placement{engine.PlacementNone, engine.PlacementSelfHosted, engine.PlacementOpenAIHosted},
			MCPOrigins:               []string{wire.OriginService, wire.OriginEnvironment},
			MCPBearer:                yes,
			ConfigurationValidation:  engine.CommonValidationOnly,
			ValidateConfiguration:    nil,
			ToolsValidation:          engine.CommonValidationOnly,
			ValidateTools:            nil,
			FunctionResultValidation: engine.CommonValidationOnly,
			ValidateFunctionResult:   nil,
		}
	}
	p := engine.For(engine.NewCatalog(ps...))
	return &p
}

// enginePolicies is the seed's draw of the engine catalog Core runs with,
// from its own random stream (every other stream keeps its draws):
//
//   - in most seeds the open profile above;
//   - in one seed in four a drawn profile for the Sessions' kind: each
//     operation qualified or not, placements and MCP origins (each origin
//     only with a placement serving it), bearer support only with an
//     origin, and additional configuration and tool validation callbacks
//     with limits of their own (a model name suffix, a tool count);
//   - in one seed in eight the built-in catalog (core/engine.Builtin),
//     which knows the synthetic kind and not the other one.
//
// In the last two, one Core restart in three brings a Core up with a
// catalog that no longer holds the Sessions' kind (an unknown kind fails
// closed at dispatch too), or, in half of the seeds, holds it only without
// an execution environment. Every start records its catalog's declared
// facts for the oracles (check.EnginePolicy); a drawn profile's catalog
// declaration is also put to engine.Check with variants the seed calls
// invalid, and the verdicts recorded (check.CatalogChecked).
type enginePolicies struct {
	r                *rand.Rand
	mode             int // 0 open, 1 drawn, 2 built-in
	base, narrowed   *engine.Policy
	baseF, narrowedF []check.EngineProfileFacts
	starts           int
	drawn            *engine.Profile
	current          []check.EngineProfileFacts // the running Core's
}

func (u *universe) drawEnginePolicies() {
	r := u.w.Rand("engine-profile")
	ep := &enginePolicies{r: r}
	switch n := r.IntN(8); {
	case n < 2:
		ep.mode = 1
	case n == 2:
		ep.mode = 2
	}
	var profiles []engine.Profile
	limits := map[string][2]int{} // kind → model suffix digit+1, tools max
	switch ep.mode {
	case 0:
		ep.base = simulatedPolicy(agentKind, otherKind)
		profiles = profilesOf(ep.base.Catalog())
	case 1:
		p, suffix, toolsMax := drawProfile(r, agentKind)
		limits[agentKind] = [2]int{suffix, toolsMax}
		ep.drawn = &p // its declaration's variants are checked at the first start
		profiles = []engine.Profile{p}
		pol := engine.For(engine.NewCatalog(profiles...))
		ep.base = &pol
	default:
		ep.base = &engine.Policy{}
		profiles = profilesOf(engine.Builtin())
	}
	ep.baseF = factsOf(profiles, limits)
	var kept []engine.Profile
	onlyNone := r.IntN(2) == 0 // the narrowed catalog keeps the kind without execution environments
	for _, p := range profiles {
		switch {
		case p.Kind != agentKind:
			kept = append(kept, p)
		case onlyNone && p.Supports(engine.PlacementNone):
			p.Placements = []engine.Placement{engine.PlacementNone}
			p.MCPOrigins = slices.DeleteFunc(slices.Clone(p.MCPOrigins), func(o string) bool { return o != wire.OriginService })
			if len(p.MCPOrigins) == 0 {
				p.MCPBearer = wire.CapabilityUnsupported // bearer support needs an origin
			}
			kept = append(kept, p)
		}
	}
	narrowed := engine.For(engine.NewCatalog(kept...))
	ep.narrowed, ep.narrowedF = &narrowed, factsOf(kept, limits)
	u.proj.engine = ep
	u.coreCfg.Policy = ep.base
}

// startPolicy picks the catalog of a Core starting now and records it.
func (u *universe) startPolicy() {
	ep := u.proj.engine
	if ep == nil {
		return
	}
	ep.starts++
	if ep.starts == 1 && ep.drawn != nil {
		u.checkCatalogVariants(*ep.drawn)
	}
	narrow := ep.r.IntN(3) == 0 // always drawn: stable streams
	pol, facts := ep.base, ep.baseF
	if ep.mode != 0 && ep.starts > 1 && narrow {
		pol, facts = ep.narrowed, ep.narrowedF
	}
	u.coreCfg.Policy = pol
	ep.current = facts
	u.led.EnginePolicy(u.lt(u.w.Now()), facts)
}

// drawProfile draws a profile for kind; suffix is the model name digit
// (plus one) its configuration callback refuses (0: common validation
// only), toolsMax the tool count above which its tool callback refuses
// plus one (0: common validation only).
func drawProfile(r *rand.Rand, kind string) (p engine.Profile, suffix, toolsMax int) {
	yn := func(n int) wire.CapabilitySupport { return wire.CapabilityFromBool(r.IntN(n) != 0) }
	no := wire.CapabilityUnsupported
	p = engine.Profile{Kind: kind, Label: "drawn " + kind,
		Capabilities: engine.Capabilities{
			WebSearchControl: yn(2), TextVerbosity: yn(2),
			StructuredOutput: yn(4), MessageImages: wire.CapabilitySupported, FunctionTools: yn(4), ToolSearch: yn(4),
			FunctionResultImages: yn(4), ProgrammaticToolCallingDisable: yn(4), Subagents: yn(4), MCPRequired: yn(2),
		},
		ConfigurationValidation: engine.CommonValidationOnly, ToolsValidation: engine.CommonValidationOnly,
		FunctionResultValidation: engine.CommonValidationOnly}
	p.Placements = []engine.Placement{engine.PlacementNone} // the plain Sessions'
	for _, pl := range engine.Placements[1:] {
		if r.IntN(4) != 0 {
			p.Placements = append(p.Placements, pl)
		}
	}
	p.MCPOrigins = []string{}
	if p.Supports(engine.PlacementNone) && r.IntN(3) != 0 {
		p.MCPOrigins = append(p.MCPOrigins, wire.OriginService)
	}
	if (p.Supports(engine.PlacementSelfHosted) || p.Supports(engine.PlacementOpenAIHosted)) && r.IntN(3) != 0 {
		p.MCPOrigins = append(p.MCPOrigins, wire.OriginEnvironment)
	}
	p.MCPBearer = no
	if len(p.MCPOrigins) > 0 {
		p.MCPBearer = yn(2)
	}
	if r.IntN(2) == 0 {
		suffix = 2 + 2*r.IntN(5) // an odd model digit, plus one: never a plain Session's
		digit := strconv.Itoa(suffix - 1)
		p.ConfigurationValidation = engine.AdditionalValidation
		p.ValidateConfiguration = func(q engine.Request) error {
			if strings.HasSuffix(q.Model, digit) {
				return errors.New("model not served")
			}
			return nil
		}
	}
	if r.IntN(2) == 0 {
		toolsMax = 1 + r.IntN(2) // one more than the tools it takes
		p.ToolsValidation = engine.AdditionalValidation
		p.ValidateTools = func(ts []wire.FunctionTool) error {
			if len(ts) > toolsMax-1 {
				return errors.New("too many tools")
			}
			return nil
		}
	}
	return p, suffix, toolsMax
}

// factsOf states profiles as the oracles read them.
func factsOf(ps []engine.Profile, limits map[string][2]int) []check.EngineProfileFacts {
	out := make([]check.EngineProfileFacts, len(ps))
	for i, p := range ps {
		c := p.Capabilities
		f := check.EngineProfileFacts{Kind: p.Kind, StructuredOutput: c.StructuredOutput.IsSupported(),
			MessageImages: c.MessageImages.IsSupported(), FunctionTools: c.FunctionTools.IsSupported(),
			ToolSearch: c.ToolSearch.IsSupported(), FunctionResultImages: c.FunctionResultImages.IsSupported(),
			ProgrammaticToolCallingDisable: c.ProgrammaticToolCallingDisable.IsSupported(), Subagents: c.Subagents.IsSupported(),
			MCPRequired: c.MCPRequired.IsSupported(), MCPBearer: p.MCPBearer.IsSupported(),
			WebSearchControl: c.WebSearchControl.IsSupported(), TextVerbosity: c.TextVerbosity.IsSupported(),
			MCPOrigins: append([]string{}, p.MCPOrigins...)}
		for _, pl := range p.Placements {
			f.Placements = append(f.Placements, string(pl))
		}
		if l := limits[p.Kind]; l[0] > 0 {
			f.ConfigRefusesModelSuffix = strconv.Itoa(l[0] - 1)
		}
		if l := limits[p.Kind]; l[1] > 0 {
			f.ToolsLimited, f.ToolsMax = true, l[1]-1
		}
		out[i] = f
	}
	return out
}

// checkCatalogVariants puts p and variants of it the seed calls invalid
// to engine.Check, recording each verdict.
func (u *universe) checkCatalogVariants(p engine.Profile) {
	variants := []func(*engine.Profile){
		func(*engine.Profile) {},
		func(q *engine.Profile) { q.MCPOrigins, q.MCPBearer = []string{}, wire.CapabilitySupported },
		func(q *engine.Profile) { q.MCPOrigins = nil },
		func(q *engine.Profile) {
			q.Placements, q.MCPOrigins = []engine.Placement{engine.PlacementNone}, []string{wire.OriginEnvironment}
		},
		func(q *engine.Profile) {
			q.ConfigurationValidation, q.ValidateConfiguration = engine.AdditionalValidation, nil
		},
		func(q *engine.Profile) {
			q.ToolsValidation, q.ValidateTools = engine.CommonValidationOnly, func([]wire.FunctionTool) error { return nil }
		},
	}
	for _, v := range variants {
		q := p
		q.Placements = append([]engine.Placement(nil), p.Placements...)
		q.MCPOrigins = append([]string{}, p.MCPOrigins...)
		v(&q)
		d := check.CatalogDeclaration{Placements: nil, OriginsNil: q.MCPOrigins == nil, Origins: q.MCPOrigins,
			Bearer:               q.MCPBearer.IsSupported(),
			ConfigPolicyMismatch: (q.ConfigurationValidation == engine.AdditionalValidation) != (q.ValidateConfiguration != nil),
			ToolsPolicyMismatch:  (q.ToolsValidation == engine.AdditionalValidation) != (q.ValidateTools != nil)}
		for _, pl := range q.Placements {
			d.Placements = append(d.Placements, string(pl))
		}
		u.led.CatalogChecked(d, engine.Check(q) != nil)
	}
}

// profilesOf lists c's profiles in kind order.
func profilesOf(c *engine.Catalog) []engine.Profile {
	var out []engine.Profile
	for _, k := range c.Kinds() {
		p, _ := c.Lookup(k)
		out = append(out, p)
	}
	return out
}

// engineRefusal classifies an API refusal by the engine policy for the
// oracles (check.SessionAdmission), or reports that err is another one.
func engineRefusal(err error) (string, bool) {
	if !errors.Is(err, core.ErrEngineUnqualified) {
		return "", false
	}
	msg := err.Error()
	switch {
	case errors.Is(err, engine.ErrUnknownEngine):
		return check.EngineUnknown, true
	case errors.Is(err, engine.ErrInvalidTools):
		return check.EngineInvalidTools, true
	case errors.Is(err, engine.ErrUnqualified):
		_, op, _ := strings.Cut(msg, engine.ErrUnqualified.Error()+": ")
		return check.EngineUnqualified + op, true
	case errors.Is(err, engine.ErrRejected) && strings.Contains(msg, engine.ErrRejected.Error()+": configuration:"):
		return check.EngineConfiguration, true
	case errors.Is(err, engine.ErrRejected) && strings.Contains(msg, engine.ErrRejected.Error()+": function_tools:"):
		return check.EngineToolsRejected, true
	}
	return "unclassified: " + msg, true
}

// plainUnderProfile makes every other Session (the first, the third; all
// of two) of a seed running a drawn or the built-in catalog one every such
// catalog qualifies (no execution
// environment, none of the optional operations, no MCP server), so that
// the seed still runs Turns when the catalog refuses the others.
func (u *universe) plainUnderProfile(a *core.AgentConfig, i, n int) bool {
	if ep := u.proj.engine; ep == nil || ep.mode == 0 || (i%2 != 0 && n > 2) {
		return false
	}
	*a = core.AgentConfig{Kind: a.Kind, Model: a.Model, SystemPrompt: a.SystemPrompt, Environment: core.EnvNone,
		TextVerbosity: a.TextVerbosity}
	return true
}

// controlsOf is the controls the running Core's catalog declares for kind,
// from the profile's declared fields.
func (u *universe) controlsOf(kind string) (webSearch, verbosity bool) {
	if ep := u.proj.engine; ep != nil {
		for _, f := range ep.current {
			if f.Kind == kind {
				return f.WebSearchControl, f.TextVerbosity
			}
		}
	}
	return false, false
}
