// Package linearize is the porcupine linearizability engine that judges a
// simulated run's API history: the models, the partitioned check with its
// timeout, and the HTML visualization of an illegal partition. It imports
// only porcupine and the standard library; package check builds the
// histories from its ledger (check.Ledger.History, DecisionHistory) and
// reports an Illegal verdict as the violation linearizability.
//
// # Models
//
// Model is one porcupine model for three families of partitions, told
// apart by the Op of each operation's Input:
//
//   - the turn model (OpRead, OpTruth): a Turn's public state never goes
//     back (queued, preparing, running, then one terminal state, TurnRank)
//     and never changes once terminal, and completed needs a completed
//     native settlement linearized before it; a truth operation is a
//     native settlement, open from its instant to the end of the history;
//   - the input model (OpSteer, OpEnd): a steer answered accepted claims
//     the next input of the Harness's applied order (or names one already
//     claimed, an idempotent retry); unknown claims the next input if it
//     is its own, is a no-op when its input is not ahead in that order,
//     and otherwise must wait; rejected claims nothing; the end requires
//     every applied input claimed;
//   - the file model (OpPut, OpGet): a workspace file is a register whose
//     value is its content or absence (File); a get returns the value of
//     the last put or get before it, or anything while the file is
//     unobserved.
//
// DecisionModel is the model of one interaction's decision: an attempt
// (a decision Core sent, until its receipt) answered applied needs a
// native apply linearized before it, and a second native apply has no
// linearization; refused and unknown attempts claim nothing.
//
// # Partitions
//
// Each operation names its partition (Input.Part, DecisionInput.Key);
// porcupine checks partitions independently. Partitions collects a
// history's operations and lists them sorted by partition key, each
// partition in the order its operations were added, with a visualization
// lane per operation: the lowest lane free at its call. A Result names,
// sorted, the partitions whose longest partial linearization leaves an
// operation out.
//
// # Timeout
//
// Check and CheckDecisions run porcupine within a wall-clock timeout
// (TimeoutDefault, 1s, for the whole set of partitions; Options.Timeout
// overrides it), the only wall-clock use of the package, inside
// porcupine. It decides Unknown, never Ok or Illegal: Unknown is its own
// result, neither passed nor a violation, and names no partition.
//
// # Visualization
//
// On Illegal, given Options.HTML, Check writes porcupine's visualization
// of the first illegal partition there, on its own (visualize.go): only
// the faults (Options.Faults) that overlap it, as annotations, and a
// banner on top stating the violation in words: the operation no
// linearization can place, what it observed, and what a linearizable
// history allows at that point. The page opens unscrolled; the banner's
// link, or the fragment #first-error, jumps to the first illegal
// linearization point.
package linearize
