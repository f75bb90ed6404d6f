package check

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Checks: engine_admission, engine_dispatch (rules.go). The engine profile
// catalog is the qualification boundary (runtime-harness 服务 profile 目录;
// 显式服务资格认定): the world records the catalog Core runs with at each
// start (EnginePolicy, the profiles' declared fields and the limits of
// their additional validation callbacks, as plain facts) and every answer
// Core gives the API client's Session creation (SessionAdmission), judged
// against the seed's admission written out again in engineAnswers. The
// order of the qualification checks among themselves is not documented:
// any unqualified operation the Session requests is a lawful answer.
//
// engine_dispatch judges the prepares and starts Core sends at device
// selection and the final check, on a connection of the Core that runs
// the policy (not a zombie's).

// Rule names (rules.go).
const (
	CheckEngineAdmission = "engine_admission"
	CheckEngineDispatch  = "engine_dispatch"
)

// EngineProfileFacts is one profile of the catalog Core runs with, as
// declared: the qualified placements, operations, MCP origins and bearer
// support, the controls, and the limits its additional validation
// callbacks enforce ("" and 0 for common validation only).
type EngineProfileFacts struct {
	Kind                                                            string
	Placements                                                      []string
	StructuredOutput, MessageImages, FunctionTools, ToolSearch      bool
	FunctionResultImages, ProgrammaticToolCallingDisable, Subagents bool
	MCPRequired, MCPBearer                                          bool
	WebSearchControl, TextVerbosity                                 bool // the controls a device must declare
	MCPOrigins                                                      []string
	ConfigRefusesModelSuffix                                        string // additional configuration validation: a model ending so is refused
	ToolsLimited                                                    bool   // additional tool validation: more tools than ToolsMax are refused
	ToolsMax                                                        int
}

// Refusal classes of Session creation the world reports (SessionAdmission).
const (
	EngineUnknown       = "unknown_engine"
	EngineConfiguration = "configuration"  // the profile's additional configuration validation
	EngineUnqualified   = "unqualified:"   // + the operation or field named
	EngineInvalidTools  = "invalid_tools"  // the common function tool decoding
	EngineToolsRejected = "function_tools" // the profile's additional tool validation
)

// Engine catalog marks: a Session creation refused by the configuration
// limits, by qualification, by the tool limits; a queued Turn failed by a
// Core whose catalog no longer qualifies its Session; a catalog
// declaration refused.
const (
	MarkEngineConfigurationRefused  = Mark("engine_configuration_refused")
	MarkEngineUnqualifiedRefused    = Mark("engine_unqualified_refused")
	MarkEngineToolsRefused          = Mark("engine_tools_refused")
	MarkEngineUnqualifiedAtDispatch = Mark("engine_unqualified_at_dispatch")
	MarkCatalogDeclarationRefused   = Mark("catalog_declaration_refused")
)

// engineExpectedMarks are the marks the engine profile draws must reach.
var engineExpectedMarks = []Mark{MarkEngineConfigurationRefused, MarkEngineUnqualifiedRefused, MarkEngineToolsRefused,
	MarkEngineUnqualifiedAtDispatch, MarkCatalogDeclarationRefused, MarkResultImagesUnqualified}

type engineState struct {
	profiles map[string]*EngineProfileFacts // the policy of the Core running now, by kind
	set      bool
}

// EnginePolicy records the catalog a Core (re)started with; a later
// record replaces it.
func (l *Ledger) EnginePolicy(at int64, profiles []EngineProfileFacts) {
	m := map[string]*EngineProfileFacts{}
	for _, p := range profiles {
		m[p.Kind] = &p
	}
	l.engine = engineState{profiles: m, set: true}
}

// SessionAdmission records Core's answer to a Session creation the API
// client asked for with spec: refusal "" when created, else its class
// (EngineUnknown, EngineConfiguration, EngineUnqualified+op,
// EngineInvalidTools, EngineToolsRejected).
func (l *Ledger) SessionAdmission(at int64, spec SessionSpec, refusal string) {
	if !l.engine.set {
		return
	}
	switch {
	case refusal == EngineConfiguration:
		l.reach(MarkEngineConfigurationRefused)
	case refusal == EngineToolsRejected:
		l.reach(MarkEngineToolsRefused)
	case strings.HasPrefix(refusal, EngineUnqualified):
		l.reach(MarkEngineUnqualifiedRefused)
	}
	want := engineAnswers(l.engine.profiles[spec.Kind], spec)
	if slices.Contains(want, refusal) {
		return
	}
	l.violate(at, CheckEngineAdmission, "Core answered the creation of a %s Session of kind %s (model %s) %s, want %s",
		spec.Environment, spec.Kind, spec.Model, cmp.Or(refusal, "created"), strings.Join(quoteAll(want), " or "))
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// engineAnswers lists the lawful answers ("" created) of profile p
// (nil: the kind is unknown) to a Session with spec.
func engineAnswers(p *EngineProfileFacts, s SessionSpec) []string {
	if p == nil {
		return []string{EngineUnknown}
	}
	if p.ConfigRefusesModelSuffix != "" && strings.HasSuffix(s.Model, p.ConfigRefusesModelSuffix) {
		return []string{EngineConfiguration}
	}
	var unq []string
	if !slices.Contains(p.Placements, s.Environment) {
		unq = append(unq, "placement")
	}
	ops := []struct {
		want, have bool
		name       string
	}{
		{s.OutputSchema != nil, p.StructuredOutput, "structured_output"},
		{len(s.FunctionTools) > 0, p.FunctionTools, "function_tools"},
		{s.toolSearch(), p.ToolSearch, "tool_search"},
		{s.FunctionResultImages, p.FunctionResultImages, "function_result_images"},
		{s.DisableProgrammaticToolCalling, p.ProgrammaticToolCallingDisable, "programmatic_tool_calling_disable"},
		{s.MultiAgent, p.Subagents, "multi_agent"},
	}
	for _, op := range ops {
		if op.want && !op.have {
			unq = append(unq, op.name)
		}
	}
	for i, m := range s.frozenMCP() {
		f := fmt.Sprintf("mcp_http_servers[%d]", i)
		switch {
		case !slices.Contains(p.MCPOrigins, m.ConnectionOrigin):
			unq = append(unq, f+".connection_origin")
		case m.Required && !p.MCPRequired:
			unq = append(unq, f+".required")
		case m.BearerToken != "" && !p.MCPBearer:
			unq = append(unq, f+".bearer_token")
		}
	}
	if len(unq) > 0 {
		for i := range unq {
			unq[i] = EngineUnqualified + unq[i]
		}
		return unq
	}
	if p.ToolsLimited && len(s.FunctionTools) > p.ToolsMax {
		return []string{EngineToolsRejected}
	}
	return []string{""}
}

// engineDispatch judges a prepare or start Core sent on conn for session.
func (l *Ledger) engineDispatch(at int64, conn uint64, what string, s *sessionFacts) {
	if !l.engine.set || l.failover.zombieConn(conn) {
		return
	}
	if why := l.engineUnqualified(s.spec); why != "" {
		l.violate(at, CheckEngineDispatch, "%s, but the engine policy Core runs %s", what, why)
	}
}

// engineUnqualified says why the policy Core runs now does not qualify
// the Session's kind and placement, or "".
func (l *Ledger) engineUnqualified(spec SessionSpec) string {
	if !l.engine.set {
		return ""
	}
	p := l.engine.profiles[spec.Kind]
	switch {
	case p == nil:
		return "has no profile for kind " + spec.Kind
	case !slices.Contains(p.Placements, spec.Environment):
		return "does not qualify placement " + spec.Environment + " for kind " + spec.Kind
	}
	return ""
}

// CheckEngineCatalog is rule engine_catalog_declaration (rules.go).
const CheckEngineCatalog = "engine_catalog_declaration"

// CatalogDeclaration is a profile's declaration as engine.NewCatalog
// validates it (runtime-harness 显式服务资格认定): its placements, its MCP
// origins (nil or a list), bearer support, and whether a validation
// policy and its callback disagree (a callback missing under
// AdditionalValidation, or set under CommonValidationOnly).
type CatalogDeclaration struct {
	Placements, Origins                       []string
	OriginsNil, Bearer                        bool
	ConfigPolicyMismatch, ToolsPolicyMismatch bool
}

// CatalogChecked records the catalog's verdict on a declaration.
func (l *Ledger) CatalogChecked(d CatalogDeclaration, refused bool) {
	why := catalogInvalid(d)
	if refused {
		l.reach(MarkCatalogDeclarationRefused)
	}
	switch {
	case why != "" && !refused:
		l.violate(0, CheckEngineCatalog, "the catalog accepts a profile declaration with %s", why)
	case why == "" && refused:
		l.violate(0, CheckEngineCatalog, "the catalog refuses a valid profile declaration (placements %v, origins %v, bearer %v)",
			d.Placements, d.Origins, d.Bearer)
	}
}

// catalogInvalid names what makes d invalid, or "".
func catalogInvalid(d CatalogDeclaration) string {
	hosted := slices.Contains(d.Placements, "self_hosted") || slices.Contains(d.Placements, "openai_hosted")
	switch {
	case len(d.Placements) == 0:
		return "no placement"
	case d.OriginsNil:
		return "a nil MCP origin list"
	case d.ConfigPolicyMismatch || d.ToolsPolicyMismatch:
		return "a validation policy its callback does not match"
	case d.Bearer && len(d.Origins) == 0:
		return "bearer support without an MCP origin"
	}
	for _, o := range d.Origins {
		if o == originService && !slices.Contains(d.Placements, EnvNone) || o == originEnvironment && !hosted {
			return "origin " + o + " without a placement serving it"
		}
	}
	return ""
}
