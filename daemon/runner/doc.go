// Package runner is the daemon as a program: it attaches a daemon.Machine
// to Core through daemon/transport and to real adapters/agent
// implementations, keeping every protocol decision in the machine.
//
// # The loop
//
// Daemon.Run bootstraps (heartbeat_seconds becomes the machine's
// HeartbeatInterval), builds the machine and steps it from one goroutine.
// Everything else reaches that goroutine as an event through one inbox:
// connections and frames from the transport link, native results and
// Turn output from the native runner, timer fires from clock timers, and
// Shutdown requests. Effects never block the loop: a Send is queued to the
// connection's ordered writer with its budget, a NativeCall starts a
// goroutine, SetTimer arms a clock.Clock timer (a fire is never delivered
// before its instant; a fire of a replaced arming is dropped).
//
// # Native calls
//
// Native runs Prepare, StartTurn, DurableWrite, Cancel, AwaitSettlement and
// CloseExecutor against the registry's Executor factories, each on its own
// goroutine, and reports exactly one NativeResult per call. A Prepare of a
// local Environment gives the factory the Runtime's own binding of that
// Environment (ExecutorConfig.WorkspaceRoot, created when missing) and
// fails, before any factory runs, when the Environment is unbound or the
// configuration's workspace_directory names another directory. Before the
// native StartTurn it creates the Turn's output channel (wire.OutputFramesMax,
// 64 events) and starts its single consumer, which forwards every event in
// order as NativeTurnEvent. A written durable input's AppliedReceipt is
// watched on its own goroutine and reported as NativeInputApplied. The
// documents' budgets (10 s write, 5 s receipt send, 10 s settlement) stay
// machine timers: Native only reports what the adapter did, whenever it
// did it. A panicking adapter call is that call's failure (logged, never a
// crash): a failed preparation, close, cancel or unconfirmed settlement, an
// unknown write outcome, and for StartTurn a Turn that may hold input, is
// reported with an error and settles not reusable so its executor is
// closed.
//
// # Startup and shutdown
//
// Install discovers and registers the enabled declarations and renders the
// heartbeat's kinds; an invalid registry refuses the start, naming the
// kind and field. Shutdown (or a device_shutdown frame, or a permanent
// transport failure) runs the machine's shutdown path: the first Report
// starts a ShutdownGrace (10 s) period; a complete Report ends Run with
// Result.Complete, the end of the grace with what is still owned.
// Cancelling Run's context is a hard stop.
//
// # Traces
//
// With Config.Tracer set, the loop records OpenTelemetry spans around the
// machine, which never sees them (tracing.go): a receive span per frame
// from Core ("receive <type>"), the child of the traceparent in the
// frame's trace field (Core's send span), or a new root when the field is
// missing or unusable (never a reason to refuse the frame); under the
// receive span of an execution_prepare, a preparation span
// (wiretrace.SpanPreparation) that ends at the first preparation_status other than
// preparing; under the receive span of an execution_start, a Turn span
// (wiretrace.SpanTurn) that ends when the Run's done or error is sent (after a
// cancel that asked for a receipt, when the receipt is sent); and a send
// span per frame to Core ("send <type>", under the frame's Turn or
// preparation span) whose traceparent the frame carries, so Core's
// receive spans continue the same trace. Heartbeats are not traced; a
// lost connection or a stop ends the spans still open. Attributes are
// identifiers, frame types, states and error codes, never the device
// credential, a secret of a payload or input text. Without a tracer the
// hooks are nil checks that allocate nothing, and frames carry no trace.
// # Readiness and metrics
//
// Ready reports whether the daemon holds a connection Core accepted and
// is not shutting down; the loop logs "daemon ready" when it becomes so.
// Config.Metrics (nil: none) counts connections and reconnects, native
// calls in flight and their latency by operation, and receipts sent by
// type and outcome; its executor gauge reads the machine's executors by
// phase on the loop at scrape time.
package runner
