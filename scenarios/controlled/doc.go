// Package controlled is the controlled Harness adapter the wire
// scenarios' harness steps drive (scenarios/README.md, "Harness
// actions"), behind the adapters/agent contract: Do applies one step,
// Serve takes the steps from the control channel of `turnstile conform
// runtime` (scenarios.ControlPath).
package controlled
