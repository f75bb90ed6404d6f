// Package mutants is the mutation suite that measures the simulation
// campaign: how many small, realistic protocol bugs of the machine
// packages (wire, core, daemon) a campaign of the full-stack world
// catches, how early, and whether a checker or only a machine's own
// invariant panic noticed.
//
// A mutant is one file of sim/testdata/mutants (see Parse for the format):
// its rule family, a one-line description, the target file, an old text
// that must occur exactly once in that file, and the new text. A mutant
// whose old text no longer occurs exactly once is stale: reported, never
// skipped silently, so that the suite survives unrelated edits and says
// when a mutant needs rewriting.
//
// Run measures each mutant in its own scratch copy of the files git
// tracks: it applies the mutant, builds cmd/turnstile there, runs
// `turnstile sim -json` for the asked number of seeds and reads the seed
// lines (a seed fails when it has violations, an illegal linearizability
// verdict or a diverged audit; a violation named "panic" is a machine
// panic), then runs `go test` on the mutated package. A mutant counts as
// caught only when some failing seed failed a check other than "panic".
//
// The package runs commands and goroutines; it is a tool, not a machine,
// and nothing in the simulation imports it.
package mutants
