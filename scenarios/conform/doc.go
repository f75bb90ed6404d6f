// Package conform plays the wire scenarios against an implementation in
// its own process, in real time (`turnstile conform`; README.md,
// "Conformance of another implementation"): RunRuntime against a Runtime,
// RunCore against a Core. With Options.Settle the side under test runs in
// process in a testing/synctest bubble, as its tests play every file.
package conform
