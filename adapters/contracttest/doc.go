// Package contracttest checks a Harness adapter against the adapters/agent
// contract, clause by clause. Three kits cover what an adapter author
// qualifies before any Core or model is involved:
//
//	func TestSharedTextLifecycle(t *testing.T) {
//		synctest.Test(t, func(t *testing.T) {
//			contracttest.TextLifecycle(t, factory, fixture)
//		})
//	}
//
//	contracttest.UnsupportedExtensionsHaveNoNativeEffects(t, factory, fixture)
//	contracttest.Declaration(t, declaration, contracttest.DeclarationOptions{...})
//
// TextLifecycle drives real Executors and Turns from the factory through
// every clause of the text lifecycle: independent Turn streams; native
// owner and history continuity across two Turns on one Executor; durable
// write and applied receipts kept distinct; cancel of the exact Turn,
// stale cancel and healthy continuation after cancel; late events never
// attributed to the active Turn; fresh per-Turn observation and input
// state; settlement confirmed independently of the cancel request;
// Reusable=false with a reason and a confirmed Close; native exit and
// cleanup failure; unknown results kept unknown; the nil-Turn rule; the
// event stream's shape (for a kind declaring tool_observations, an
// engine-neutral observation on every tool_call; under observe_messages,
// each output message started in_progress before it completes, and none
// without it; a subagent observation only from a kind declaring
// subagent_observations); and, for an Executor that is an executable
// preparation (agent.Prepared and agent.PreparedCancellation, both), the
// way the Runtime drives it (CheckPrepared): started, its Turn owns the
// output and Close alone retires it; unused, CancelPrepared stops its work
// and output (the next StartTurn refuses with a nil Turn, writing nothing)
// and Release and Close confirm the cleanup, each idempotent. An Executor
// that implements neither makes those clauses not applicable, with that
// reason printed. UnsupportedExtensionsHaveNoNativeEffects calls
// every extension interface (Contracts classifies each interface of
// package agent, so a new one is judged as soon as it exists) on the
// Executor, a Turn and a Prepared owner. Declaration checks that every
// capability member is decided and that the declaration, discovery, the
// interfaces implemented and the package's contracts.go assertions agree.
//
// Failures are gathered, as testing/fstest.TestFS gathers them, into one
// report: one line per failure naming its Clause and the step (the Run ID
// or the operation), then one line per clause saying how often it was
// exercised and whether it passed. The Check functions return the Report
// itself and the Test functions its error (each problem wraps
// ErrViolation), for callers that judge it themselves.
//
// The Fixture's hooks script the native fixture (hold a Turn, delay
// application, slow cancel, retire, native exit, late callback, start and
// close failures) and expose its ground truth (Applied, Effects).
//
// A kit that did not exercise what it claims fails: every clause
// TextLifecycle (TextLifecycleClauses), the unsupported-extension check
// (ClauseUnsupported) or the declaration check (DeclarationClauses) judges
// that was exercised zero times fails with its name and the reason derived
// from the run — no Turn started and the first start error, the Fixture
// hook that is nil, a capability Core requires that the installed
// descriptor leaves unsupported ("Core refuses every Turn: capability
// `steering` not declared") — unless Fixture.NotApplicable or
// DeclarationOptions.NotApplicable marks it with a reason, which the report
// prints. The individual Check functions are building blocks and do not
// apply this rule. The checks observe for a
// bounded window (Fixture.Window) to prove that something did not happen.
// Inside a testing/synctest bubble that window is virtual time and the
// observation is deterministic; run controlled fixtures there.
package contracttest
