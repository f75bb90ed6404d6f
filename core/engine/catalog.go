package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// Catalog is an immutable, validated snapshot of profiles, one per kind.
// The zero value holds no profile.
type Catalog struct {
	profiles []Profile // sorted by Kind
}

// NewCatalog validates every profile and publishes an immutable snapshot.
// It panics with an error wrapping ErrInvalidDeclaration naming the first
// invalid field of the first invalid entry (by position, never by value).
// An explicit empty list yields a catalog that qualifies nothing.
func NewCatalog(profiles ...Profile) *Catalog {
	if err := Check(profiles...); err != nil {
		panic(err)
	}
	out := make([]Profile, len(profiles))
	for i, p := range profiles {
		out[i] = p.clone()
	}
	slices.SortFunc(out, func(a, b Profile) int { return strings.Compare(a.Kind, b.Kind) })
	return &Catalog{profiles: out}
}

// Check reports, without panicking, the error NewCatalog would panic with.
func Check(profiles ...Profile) error {
	for i, p := range profiles {
		if err := p.check(); err != nil {
			return fmt.Errorf("%w: profiles[%d].%v", ErrInvalidDeclaration, i, err)
		}
		for j := range i {
			if profiles[j].Kind == p.Kind {
				return fmt.Errorf("%w: profiles[%d].Kind: duplicates profiles[%d]", ErrInvalidDeclaration, i, j)
			}
		}
	}
	return nil
}

// Lookup returns the profile of kind. Unknown kinds fail closed.
func (c *Catalog) Lookup(kind string) (Profile, bool) {
	p := c.find(kind)
	if p == nil {
		return Profile{}, false
	}
	return p.clone(), true
}

// find returns the catalog's own profile of kind (nil when unknown), for
// readers that neither keep nor change it.
func (c *Catalog) find(kind string) *Profile {
	if c == nil {
		return nil
	}
	i, ok := slices.BinarySearchFunc(c.profiles, kind, func(p Profile, k string) int { return strings.Compare(p.Kind, k) })
	if !ok {
		return nil
	}
	return &c.profiles[i]
}

// Kinds lists the catalog's kinds in sorted order.
func (c *Catalog) Kinds() []string {
	if c == nil {
		return nil
	}
	out := make([]string, len(c.profiles))
	for i, p := range c.profiles {
		out[i] = p.Kind
	}
	return out
}

// fieldErr names a field and a fixed reason; it never carries a value.
type fieldErr struct{ field, reason string }

func (e fieldErr) Error() string { return e.field + ": " + e.reason }

// profileFields classifies every Profile field: the validator that owns
// it. A field missing here fails the package's completeness test.
var profileFields = []string{
	"Kind", "Label", "Capabilities", "Placements", "MCPOrigins", "MCPBearer",
	"ConfigurationValidation", "ValidateConfiguration",
	"ToolsValidation", "ValidateTools",
	"FunctionResultValidation", "ValidateFunctionResult",
}

func (p Profile) check() error {
	checks := []func() error{
		p.checkKind, p.checkCapabilities, p.checkPlacements, p.checkMCP,
		func() error {
			return checkPolicy("ConfigurationValidation", "ValidateConfiguration", p.ConfigurationValidation, p.ValidateConfiguration != nil)
		},
		func() error {
			return checkPolicy("ToolsValidation", "ValidateTools", p.ToolsValidation, p.ValidateTools != nil)
		},
		func() error {
			return checkPolicy("FunctionResultValidation", "ValidateFunctionResult", p.FunctionResultValidation, p.ValidateFunctionResult != nil)
		},
	}
	for _, c := range checks {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}

func (p Profile) checkKind() error {
	switch {
	case p.Kind == "":
		return fieldErr{"Kind", "empty"}
	case strings.TrimSpace(p.Kind) != p.Kind:
		return fieldErr{"Kind", "surrounding white space"}
	case strings.TrimSpace(p.Label) == "":
		return fieldErr{"Label", "blank"}
	}
	return nil
}

func (p Profile) checkCapabilities() error {
	for _, f := range p.Capabilities.Fields() {
		if !f.Value.Valid() {
			return fieldErr{"Capabilities." + f.Name, "unspecified or unknown decision"}
		}
	}
	return nil
}

func (p Profile) checkPlacements() error {
	if len(p.Placements) == 0 {
		return fieldErr{"Placements", "no supported placement"}
	}
	for i, pl := range p.Placements {
		f := fmt.Sprintf("Placements[%d]", i)
		if !slices.Contains(Placements, pl) {
			return fieldErr{f, "unknown placement"}
		}
		if slices.Contains(p.Placements[:i], pl) {
			return fieldErr{f, "duplicate placement"}
		}
	}
	return nil
}

func (p Profile) checkMCP() error {
	if p.MCPOrigins == nil {
		return fieldErr{"MCPOrigins", "nil (an empty list qualifies no origin)"}
	}
	for i, o := range p.MCPOrigins {
		f := fmt.Sprintf("MCPOrigins[%d]", i)
		switch {
		case o != wire.OriginService && o != wire.OriginEnvironment:
			return fieldErr{f, "unknown origin"}
		case slices.Contains(p.MCPOrigins[:i], o):
			return fieldErr{f, "duplicate origin"}
		case !p.servesOrigin(o):
			return fieldErr{f, "no placement serves this origin"}
		}
	}
	if !p.MCPBearer.Valid() {
		return fieldErr{"MCPBearer", "unspecified or unknown decision"}
	}
	if p.MCPBearer.IsSupported() && len(p.MCPOrigins) == 0 {
		return fieldErr{"MCPBearer", "bearer support without an MCP origin"}
	}
	return nil
}

// servesOrigin: the service origin runs without an execution environment
// (placement none); the environment origin needs a local environment.
func (p Profile) servesOrigin(o string) bool {
	if o == wire.OriginService {
		return p.Supports(PlacementNone)
	}
	return p.Supports(PlacementSelfHosted) || p.Supports(PlacementOpenAIHosted)
}

func checkPolicy(field, callback string, v ValidationPolicy, hasCallback bool) error {
	switch v {
	case CommonValidationOnly:
		if hasCallback {
			return fieldErr{callback, "set with " + field + " CommonValidationOnly"}
		}
	case AdditionalValidation:
		if !hasCallback {
			return fieldErr{callback, "required by " + field + " AdditionalValidation"}
		}
	default:
		return fieldErr{field, "unspecified or unknown policy"}
	}
	return nil
}
