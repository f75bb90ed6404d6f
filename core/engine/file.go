package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/turnstile-sim/turnstile/wire"
)

// ErrProfileFile: an engine profile file is not a JSON object
// {"profiles": [...]} whose every profile names every field, or a profile
// fails the catalog's validation. The error names the field, never its
// value.
var ErrProfileFile = errors.New("engine: invalid profile file")

// profileFileKeys are the keys every profile of a file must name: the
// file form of every Profile field but the callbacks, which a file cannot
// carry (its validation policies must be common_validation_only).
var profileFileKeys = []string{
	"kind", "label", "capabilities", "placements", "mcp_origins", "mcp_bearer",
	"configuration_validation", "tools_validation", "function_result_validation",
}

// capabilityKey is the file key of a Capabilities field: its name in
// snake case (WebSearchControl: web_search_control).
func capabilityKey(name string) string {
	var b strings.Builder
	rs := []rune(name)
	for i, r := range rs {
		if unicode.IsUpper(r) {
			// a word starts at an upper case letter after a lower case
			// one, or before one (MCPRequired: mcp_required)
			if i > 0 && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ParseProfiles reads an engine profile file: the operator's explicit
// qualification of Harness kinds the built-in catalog does not hold. Every
// profile names every field and every capability (true or false): nothing
// is filled in by default. Validation policies must be
// "common_validation_only", since a file carries no callback. The profiles
// are checked as NewCatalog checks them.
func ParseProfiles(data []byte) ([]Profile, error) {
	var file map[string]json.RawMessage
	if err := strictObject(data, &file); err != nil {
		return nil, fmt.Errorf("%w: not a JSON object: %v", ErrProfileFile, err)
	}
	if err := keysExactly(file, []string{"profiles"}); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrProfileFile, err)
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(file["profiles"], &entries); err != nil || len(entries) == 0 {
		return nil, fmt.Errorf("%w: profiles: want a non-empty array", ErrProfileFile)
	}
	out := make([]Profile, len(entries))
	for i, raw := range entries {
		p, err := parseProfile(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: profiles[%d].%v", ErrProfileFile, i, err)
		}
		out[i] = p
	}
	if err := Check(out...); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrProfileFile, err)
	}
	return out, nil
}

func strictObject(data []byte, v *map[string]json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if *v == nil {
		return errors.New("null")
	}
	if dec.More() {
		return errors.New("trailing data")
	}
	return nil
}

// keysExactly names the first missing or unknown key of obj.
func keysExactly(obj map[string]json.RawMessage, want []string) error {
	for _, k := range want {
		if _, ok := obj[k]; !ok {
			return fieldErr{k, "missing (every field must be named)"}
		}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(want, k) {
			return fieldErr{k, "unknown field"}
		}
	}
	return nil
}

func parseProfile(raw json.RawMessage) (Profile, error) {
	var obj map[string]json.RawMessage
	if err := strictObject(raw, &obj); err != nil {
		return Profile{}, fieldErr{"", "not a JSON object"}
	}
	if err := keysExactly(obj, profileFileKeys); err != nil {
		return Profile{}, err
	}
	var p Profile
	str := func(key string, dst *string) error {
		if json.Unmarshal(obj[key], dst) != nil {
			return fieldErr{key, "want a string"}
		}
		return nil
	}
	if err := str("kind", &p.Kind); err != nil {
		return Profile{}, err
	}
	if err := str("label", &p.Label); err != nil {
		return Profile{}, err
	}
	var caps map[string]json.RawMessage
	if err := strictObject(obj["capabilities"], &caps); err != nil {
		return Profile{}, fieldErr{"capabilities", "not a JSON object"}
	}
	var names []string
	for _, f := range p.Capabilities.Fields() {
		names = append(names, capabilityKey(f.Name))
	}
	if err := keysExactly(caps, names); err != nil {
		return Profile{}, fieldErr{"capabilities." + err.(fieldErr).field, err.(fieldErr).reason}
	}
	decided := map[string]CapabilitySupport{}
	for _, n := range names {
		var b bool
		if json.Unmarshal(caps[n], &b) != nil {
			return Profile{}, fieldErr{"capabilities." + n, "want true or false"}
		}
		decided[n] = wire.CapabilityFromBool(b)
	}
	p.Capabilities = Capabilities{
		WebSearchControl:               decided["web_search_control"],
		TextVerbosity:                  decided["text_verbosity"],
		StructuredOutput:               decided["structured_output"],
		MessageImages:                  decided["message_images"],
		FunctionTools:                  decided["function_tools"],
		ToolSearch:                     decided["tool_search"],
		FunctionResultImages:           decided["function_result_images"],
		ProgrammaticToolCallingDisable: decided["programmatic_tool_calling_disable"],
		Subagents:                      decided["subagents"],
		MCPRequired:                    decided["mcp_required"],
	}
	var placements []string
	if json.Unmarshal(obj["placements"], &placements) != nil {
		return Profile{}, fieldErr{"placements", "want an array of strings"}
	}
	for _, pl := range placements {
		p.Placements = append(p.Placements, Placement(pl))
	}
	if json.Unmarshal(obj["mcp_origins"], &p.MCPOrigins) != nil || p.MCPOrigins == nil {
		return Profile{}, fieldErr{"mcp_origins", "want an array of strings"}
	}
	var bearer bool
	if json.Unmarshal(obj["mcp_bearer"], &bearer) != nil {
		return Profile{}, fieldErr{"mcp_bearer", "want true or false"}
	}
	p.MCPBearer = wire.CapabilityFromBool(bearer)
	for _, v := range []struct {
		key string
		dst *ValidationPolicy
	}{{"configuration_validation", &p.ConfigurationValidation}, {"tools_validation", &p.ToolsValidation},
		{"function_result_validation", &p.FunctionResultValidation}} {
		var s string
		if json.Unmarshal(obj[v.key], &s) != nil || s != CommonValidationOnly.String() {
			return Profile{}, fieldErr{v.key, "want \"common_validation_only\" (a file carries no validation callback)"}
		}
		*v.dst = CommonValidationOnly
	}
	return p, nil
}

// Only returns the catalog of c's profiles whose kinds are listed, or an
// error naming the first listed kind c does not hold.
func (c *Catalog) Only(kinds []string) (*Catalog, error) {
	var ps []Profile
	for _, k := range kinds {
		p := c.find(k)
		if p == nil {
			return nil, fmt.Errorf("%w: %q", ErrUnknownEngine, k)
		}
		ps = append(ps, p.clone())
	}
	if err := Check(ps...); err != nil {
		return nil, err
	}
	return NewCatalog(ps...), nil
}
