// Package fuzz holds the go test -fuzz targets of the protocol codec and
// of the whole simulated world, and their checked-in seed corpora
// (testdata/fuzz/<FuzzName>/).
//
// FuzzWorld hands the fuzzer's bytes to the full-stack world: a seed, the
// fault kinds its swarm may enable, the number of devices and turns, and the
// first draws of the streams that decide the devices' capabilities and the
// workload (sim.Draws). Go's coverage feedback then steers those choices
// toward code of the machines that earlier inputs did not reach. A failing
// input is written as a regression case under $TURNSTILE_FUZZ_OUT (default:
// the temporary directory) that `turnstile replay -schedule FILE` replays,
// draws included. Look there after every fuzzing run, even one that ends in
// PASS: Go's fuzzer runs inputs while minimizing an interesting one and may
// drop a failure found that way without reporting it, but FuzzWorld has
// written the case before it fails.
//
// Each FuzzWorld input runs under a budget of 20,000 kernel steps
// (worldStepsMax in world_test.go): Go's fuzzing worker dies when one call
// of the fuzz function takes more than 10 s of wall time, and an unbounded
// world can take that long (a few inputs run past 200,000 steps), which
// the fuzzer reported as "fuzzing process hung or terminated unexpectedly"
// with an input that passes when rerun. A run that reaches the budget
// stops there, every safety check having held up to it, and is not a
// failure; the checks of a run's end are left to campaigns. The "execs"
// count the fuzzer prints leaves out the runs of a minimization still in
// progress, and minimizing an input that reached new code takes up to
// -fuzzminimizetime (60 s by default) of full world runs, so a short
// FuzzWorld run may print few execs and spend itself minimizing its first
// find; `make fuzz` passes -fuzzminimizetime $(FUZZMINIMIZETIME), 5 s by
// default.
//
// Every codec target checks the same properties: decoding never panics;
// a rejection wraps one of the named wire errors; an accepted frame is
// accepted by encoding/json too and reads the same (ID and payload, once
// both are marshalled); an accepted frame whose payload validates re-encodes
// and decodes to an equal value; an accepted frame whose payload does not
// validate cannot be encoded.
//
// Exploration rate (exploration_test.go): with TURNSTILE_FUZZ_STATES=FILE,
// FuzzWorld appends each run's protocol states reached (its rare-state
// marks, Core's final turn states and the timers that decided something;
// a failing run also "violation:CHECK", since it stopped early with turns
// still open) to FILE; TestExplorationRandomSeeds with -states.duration D and
// -states.out FILE does the same for random seeds, and
// TestExplorationSummary -states.summary A,B prints, minute by minute, the
// distinct states and state combinations each file reached. Each line also
// records the run's input in hex: -states.with ATOM lists the inputs that
// reached a state, and TestExplorationInput -states.input HEX runs one
// again and prints its violations and Core's final turn states.
//
// `make fuzz-smoke` runs each target for a few seconds; `make fuzz` for
// FUZZTIME each. `go test ./fuzz -update` rewrites the seed corpora from
// the golden fixtures of package wire and the rejection seeds of
// reject_seeds_test.go (one per error class a target can reach, each
// checked by TestRejectionSeeds to fail with its named error).
package fuzz
