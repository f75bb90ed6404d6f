package scenarios

import _ "embed"

// ContractKind is the Harness kind the scenarios' sessions name.
const ContractKind = "contract"

// contractProfile is the engine profile file of ContractKind: every
// operation, placement and MCP origin qualified, no control declared, so
// that the Runtime's declaration alone decides what a device serves.
//
//go:embed contract-profile.json
var contractProfile []byte

// ContractProfile returns the engine profile file (engine.ParseProfiles)
// a Core under test loads to qualify ContractKind
// (turnstile core -engine-profiles).
func ContractProfile() []byte { return append([]byte(nil), contractProfile...) }
