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
//	daemon           run a Runtime daemon connected to Core
//	conform          play the wire scenarios against another Core or Runtime
//	version          print the build: module version, commit, Go and wire versions
//
// Run 'turnstile <command> -h' for a command's flags.
//
// Exit codes: 0 success; 1 a violation, a missed expected mark or a missing
// seed; 2 bad flags or arguments; 3 the tool itself failed (a file could
// not be read or written, a bad case file).
//
// This package is a shell: it owns the wall clock, the worker goroutines,
// the terminal, the file system and the processes' sockets, and wires the
// machines (core, daemon) to their shells (core/server, core/gateway,
// core/api, daemon/runner, daemon/transport) and adapters. Every protocol
// decision stays in the machines; see ARCHITECTURE.md at the repository
// root.
package main
