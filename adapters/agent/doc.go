// Package agent is the Harness adapter contract: the interfaces a native
// agent engine's adapter implements so that the Runtime can prepare,
// run, steer, cancel, settle and clean up its work, plus the declaration
// and Registry through which an adapter is installed. It imports only
// package wire: every request, event and receipt is a neutral wire type.
//
// # Ownership
//
// The Runtime owns admission, idle expiry, replacement and the output
// consumer. The adapter owns its native process, query or connection, the
// native callbacks and every native resource until it confirms their
// release. A Session has one reusable Executor; each Turn owns one input
// execution, its output stream and its cancellation.
//
// # Lifecycle
//
//	ExecutorFactory.NewExecutor  prepare fixed configuration, no model input
//	                             (an executable preparation until a Turn starts;
//	                             unused, it gets CancelPrepared and Release
//	                             before Close when it implements them)
//	Executor.StartTurn           one fresh Turn per input
//	  events → TurnRequest.Output, in order, each with the Run ID
//	  Turn closes Output exactly once
//	Turn.AwaitSettlement         confirms the end; Reusable or a retire Reason
//	Executor.StartTurn ...       next Turn when Reusable
//	Executor.Close               on idle expiry, retirement or shutdown
//
// An Executor runs one Turn at a time: StartTurn answers ErrExecutorBusy
// while the previous Turn is unsettled and never replaces a healthy native
// resource. Every Turn gets new state (wrapper, output channel, receipts);
// native callbacks capture their Turn before asynchronous work begins, so a
// late native event is never attributed to a successor.
//
// # Events
//
// A Turn writes Event values (a Run ID and a wire run-output payload) to
// the caller's channel in native order: deltas, thinking, messages, tool
// calls, usage, error, and one final done. Usage is a complete cumulative
// snapshot that replaces the previous one; missing measurements stay
// unset, never zero. An error is followed by done. Native IDs and usage are
// observed, never invented.
//
// An adapter that declares subagent_observations also writes the
// subagent observations (wire.SubagentIdentity, SubagentLifecycle,
// SubagentTurn, SubagentItem) of a Turn prepared with
// observe_subagent_identities: each child's identity first, an item only
// inside a subagent turn it reported, a close as a lifecycle (a completed
// subagent turn does not close its subagent). Event.ValidateFor refuses
// them from an adapter that does not declare the capability
// (ErrUndeclaredObservation).
//
// # The nil-Turn rule
//
// The caller creates TurnRequest.Output and starts its consumer before
// calling StartTurn. A nil Turn guarantees that no native input was
// submitted and that the adapter kept no reference to the channel; the
// caller closes it. Once input may have been submitted, StartTurn returns a
// non-nil Turn even together with an error; that Turn closes the channel
// exactly once and is tracked until AwaitSettlement confirms settlement.
// Unknown input is never replayed. Only ErrExecutorUnavailable with a nil
// Turn permits one recovery attempt with a fresh Executor. A nil Turn is
// never used to mean "unsupported". The direct-call Factory follows the
// same rule for its Session.
//
// # Cancellation
//
// Session.Cancel (and so Turn.Cancel) targets exactly one execution,
// returns without waiting and never closes a healthy Executor; cancelling a
// settled Turn does nothing. CancellationOutcome returns, without waiting,
// what was observed: native identity, usage and output. Unset members are
// missing evidence; an empty snapshot means nothing was observed, not that
// the cancel succeeded. It stays readable after settlement and renders as
// the wire.Done carried by a cancel receipt. PreparedCancellation.CancelPrepared
// returns once local cleanup finished and output writes stopped. Neither a
// successful cancel request nor its snapshot replaces AwaitSettlement and
// any required Executor.Close.
//
// # Settlement and reuse
//
// AwaitSettlement covers natural completion and cancellation alike.
// Success means the output channel is closed and the Turn's native events,
// inputs, functions, interactions and background work are settled.
// TurnSettlement.Reusable confirms the native owner accepts the next Turn;
// Reusable=false carries a Reason and the caller must then confirm
// Executor.Close before the slot is free. An error (ErrNotSettled wrapping
// the context error) proves nothing and releases neither ownership nor
// capacity: a caller deadline stops waiting, not tracked cleanup.
//
// Executor.Close confirms resource release independently of Turn results:
// a failed Turn never prevents closing once its work and output stopped.
// Close is idempotent after success; a failure (ErrCloseFailed or a
// context error) keeps the resources and the slot owned, and the same
// target is retried serially. Closing a transport is not evidence of a
// native end state or of an operation receipt.
//
// # Input and steering
//
// Initial input and steering use ordered wire.MessageInput. A text-only
// adapter converts it with MessageInput.TextOnly and refuses image parts
// with ErrUnsupportedOperation wrapping wire.ErrImageUnsupported before
// submitting anything; it never drops them. DurableSteerer is required on
// every Turn: SteerDurable returning nil is the "written" stage; the
// AppliedReceipt reports native application separately. A repeated InputID
// with the same input returns the same receipt; different input is
// ErrInputConflict.
//
// # Extensions and unsupported operations
//
// Steerer, FunctionResultSubmitter, PermissionResponder and
// UserChoiceResponder (on a Turn) and WorkspaceReader,
// WorkspaceDirectoryLister and WorkspaceWriter (on a Turn, an Executor and
// a Prepared owner) are small, separate interfaces. Every adapter
// implements each one explicitly, asserted in its contracts.go, with no
// embedded defaults. An operation that is not qualified answers
//
//	agent.Unsupported("native public function tools are not qualified")
//
// which wraps ErrUnsupportedOperation with a fixed, safe reason: never
// submitted content, credentials or native diagnostics. Unsupported
// guarantees no native side effect and never means success. Unknown or
// expired identities (ErrNotPending), native failures and uncertain
// outcomes keep their own errors and ownership. Unsupported never stands in
// for a required obligation: answering it for cancellation, settlement, a
// durable text input receipt or cleanup is a contract violation, and so is
// refusing an operation the declaration claims. (Refusing unsupported input
// such as images before submission is allowed.) Interface assertions verify
// an implementation; only the declaration states support.
//
// # Declaration and registration
//
// A Declaration names the kind, the complete wire.AgentKindCapabilities
// (every member explicitly supported or unsupported, even when the kind is
// unavailable), the shared ModelConfiguration and a Discover function. The
// Registry installs, in order: RegisterKind (descriptor, configuration and
// direct-call Factory; it resets the kind's other registrations, so it
// comes first), RegisterExecutor (the Executor and Turn lifecycle; the
// Preparation capability Kinds reports derives from it) and the optional
// RegisterPreparation (read-only workspace preparation). Register runs the
// three for what discovery returned, after checking that discovery kept
// the declared kind. Every registration validates everything before it
// mutates: a rejection returns a named error and leaves the Registry
// unchanged.
package agent
