// Command turnstile is the one binary of Turnstile: the real Core and
// Runtime daemon, the simulator's front end, and the conformance runner.
//
// Usage:
//
//	turnstile <command> [flags]
//
// The commands:
//
//	sim              run a simulation campaign over many seeds (sim/campaign over sim/world)
//	replay           replay one seed or a stored schedule, print its fingerprint
//	shrink           minimise the faults and workload of a failing seed
//	campaign merge   combine the JSON-lines output of campaign shards
//	core             run Core: the gateway for daemons, the public API, the SQLite store
//	core device      add, list or revoke a device credential
//	core key         add, list or revoke an API key of the Agents API (/v1)
//	daemon           run a Runtime daemon connected to Core
//	conform          play the wire scenarios against another Core or Runtime
//	version          print the build: module version, commit, Go and wire versions
//
// Run 'turnstile <command> -h' for a command's flags.
//
// Exit codes, the same table for every command ('turnstile -h' prints it):
//
//	0  pass: everything asked was checked and held
//	1  a violation: a seed or scenario failed, an expected mark was missed, seeds are missing
//	2  usage error: bad flags or arguments
//	3  bad input or unreadable evidence: a shard, case, trace or report file cannot be
//	   read, decoded or written; Core's TLS certificate or key cannot be loaded
//	4  vacuous: the run checked nothing (a merge that read no seed), or skipped scenarios
//	   for lack of a credential (conform core without -operator-token-file)
//	5  no store: the -data directory does not exist (or holds no store); nothing was created
//
// This package is a shell: it owns the wall clock, the worker goroutines,
// the terminal, the file system and the processes' sockets, and wires the
// machines (core, daemon) to their shells (core/server, core/gateway,
// core/api, daemon/runner, daemon/transport) and adapters. Every protocol
// decision stays in the machines; see ARCHITECTURE.md at the repository
// root.
//
// Traces: `turnstile core` and `turnstile daemon` export OpenTelemetry
// spans (see core/server and daemon/runner) over OTLP/HTTP when
// -otlp-endpoint (TURNSTILE_OTLP_ENDPOINT; a collector base URL, to which
// /v1/traces is appended) or the SDK's OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, as service turnstile-core or
// turnstile-daemon (OTEL_RESOURCE_ATTRIBUTES and the other OTEL_* variables
// of the SDK apply); otherwise they record nothing (tracing.go).
package main
