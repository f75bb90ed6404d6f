// Package engine is Core's engine profile catalog: the service's own
// qualification of each Harness kind, independent of what a Runtime
// declares in its heartbeat.
//
// A Profile names one Harness kind and decides, field by field, which
// public operations and placements the service qualifies for it:
//
//   - every capability field is an explicit wire.CapabilitySupport;
//     the zero value (unspecified) is rejected, never read as "no";
//   - Placements lists at least one supported Environment placement;
//   - MCPOrigins is a non-nil list of qualified MCP connection origins
//     (empty qualifies none), and every origin needs a placement it can
//     serve; MCPBearer needs at least one origin;
//   - ConfigurationValidation, ToolsValidation and FunctionResultValidation
//     each choose CommonValidationOnly (its callback must be nil) or
//     AdditionalValidation (its pure callback is required).
//
// NewCatalog checks every entry before publishing an immutable snapshot
// and panics with an error wrapping ErrInvalidDeclaration that names the
// offending field and the entry's position, never a declared value: a
// catalog is static registration, so a bad one is a programming error.
//
// A Policy wraps one Catalog and is the single qualification source of
// Core: the API's admission (Policy.Admit), device selection
// (Policy.Controls) and the final check before a Turn is claimed
// (Policy.Qualified) all read the same immutable value. The zero Policy
// uses the built-in catalog (Builtin); a Policy over an explicit empty
// catalog authorises nothing. There is no mutable global registration, and
// no code outside this package branches on an engine's name: the tidy test
// of this package enforces that for every non-test file under core/.
//
// ParseProfiles reads an operator's engine profile file, whose every
// profile names every field; Catalog.Only restricts a catalog to the
// kinds an operator enables.
//
// Package enginetest holds an exhaustive test fixture whose literal names
// every Profile field, so adding a field forces a decision in the fixture
// (and in every production profile, which NewCatalog validates).
package engine
