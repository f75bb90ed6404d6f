// Package controlled is the controlled Harness adapter the wire
// scenarios' harness steps drive (scenarios/README.md, "Harness
// actions"): every native call succeeds at once unless a step armed a
// fault, and a native Turn runs until a settle step settles it. It serves
// every kind behind the adapters/agent contract.
//
// Do applies one harness step. Serve takes the steps from the control
// channel of `turnstile conform runtime` (a WebSocket at
// scenarios.ControlPath), so that a daemon, in its own process or in
// process in conform's tests, is driven by the scenario.
//
// It is not adapters/synthetic: the synthetic Harness plays a script
// fixed when a Turn starts, while a scenario decides each native outcome
// at the step it reaches (a setup that hangs until a later release, a
// write whose outcome is unknown, a settlement with a given outcome).
package controlled
