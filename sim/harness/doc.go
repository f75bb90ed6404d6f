// Package harness is the simulated Harness and the simulator's shell for
// the daemon machine.
//
// Harness is a sim service answering the native calls of daemon.Machine
// (Prepare, StartTurn, DurableWrite, Cancel, AwaitSettlement,
// CloseExecutor) in virtual time, with latencies and faults drawn from its
// own random stream ("harness:<node>"). Results travel as ResultMsg
// replies; native events of a Turn (output, the native terminal result,
// input consumption) travel as EventMsg replies streamed on the call that
// caused them.
//
// Fault kinds (Faults, each an integer Ratio, all off after heal):
// prepare failure; start failure before input (no Turn) and after input
// (a Turn with an error); durable write failure, uncertain outcome and
// completion beyond the daemon's budget; late consumption confirmation;
// cancel failure; a cancelled Turn settling late or only after heal;
// unconfirmed settlement; native events after cancel; Reusable=false;
// close failure (a later try may succeed); and Hang, which holds any reply
// until heal. DrawFaults enables a random subset.
//
// Truth records what really happened natively: executors created and
// closed, Turns created per Run and when their settlement was reported,
// inputs written and applied. It also lists contract breaches the Harness
// saw (a start on a retired executor, a close under a live Turn, an input
// written twice, a Run started natively twice).
//
// Daemon wraps a daemon.Machine as a sim node: it dials Core, decodes and
// encodes frames with wire, turns sim timers and calls into machine
// events, and reports every machine event and effect to an Observer for
// checkers.
package harness
