// Package synthetic is a controlled, text-only Harness adapter. It runs
// real goroutines behind the adapters/agent contract and follows a script
// per Turn, so tests can produce every lifecycle path on demand: streamed
// deltas and usage, error events, start failures before and after input,
// slow cancellation, non-reusable settlement, durable steering receipts and
// close failures. It is also the onboarding example for adapter authors.
//
// Harness is the native engine: it implements agent.ExecutorFactory,
// agent.Factory and agent.PreparationFactory, hands each StartTurn the next
// queued TurnScript (an empty queue echoes the input text) and records its
// ground truth (Truth) for checkers. Executor keeps one native session
// identity across Turns and runs one Turn at a time; each Turn plays its
// script on its own goroutine, closes its output exactly once and then
// settles. contracts.go asserts every contract interface; every refusal is
// written out with a fixed reason. Declaration and Capabilities show how a
// kind is declared and discovered; the package example shows registration
// and one Turn end to end.
//
// New declares no permissions or function tools and refuses the three
// responders with fixed reasons (agent.ErrUnsupportedOperation, no native
// effect). NewWith(Extensions{...}) qualifies them: the declaration says
// so, a TurnScript's Asks are emitted and the Turn waits for their
// answers, each applied natively once to exactly what it asked
// (agent.ErrNotPending otherwise; user-choice answers bound by question
// ID), and Truth.Decisions lists what was applied.
package synthetic
