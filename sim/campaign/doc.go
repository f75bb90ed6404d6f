// Package campaign runs simulation campaigns: many seeds of one world, each
// reported as one JSON line, folded into a summary that says what was explored
// and whether anything broke.
//
// The package is pure. It never reads a clock, starts goroutines or touches
// the file system: the shell (cmd/turnstile) injects a wall-time reading,
// runs seeds on as many goroutines as it likes, writes files, and hands the
// reports back in seed order (Orderer helps). Everything here is therefore
// covered by the same determinism guard as the kernel.
//
// The pieces, in the order a campaign uses them:
//
//   - Plan and Shard: which seeds a (possibly sharded) campaign runs. Seed
//     index k of the campaign belongs to shard k mod n.
//   - Runner: the world under test (Run, Replay, a traced rerun, Shrink).
//     cmd/turnstile adapts sim/world to it; tests use a small world of their
//     own.
//   - RunSeed: one seed, with the determinism auditor (every failing seed and
//     every AuditEvery-th seed is run a second time, keeping its trace; a
//     fingerprint mismatch is itself a failure naming the first divergent
//     trace line).
//   - SeedReport: the JSON line of one seed. Header is the first line of a
//     campaign's output.
//   - Summary: the campaign totals and verdict, including MarkTally's
//     verdict on sim/check's expected marks.
//   - Bundle: the files of a failing seed's report folder.
//   - Merger: combines the JSON-lines output of shards.
//   - Case: a regression corpus entry (also the format of shrunk.json).
package campaign
