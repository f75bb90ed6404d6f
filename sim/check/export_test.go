package check

import "github.com/anishathalye/porcupine"

// Passed is true only for Ok: Unknown is not a pass.
func (r LinearizeResult) Passed() bool { return r.Result == porcupine.Ok }

// HostileRefusals returns, per action, the forgeries refused as the seeds
// document, sorted by action.
func (l *Ledger) HostileRefusals() []MarkCount {
	return sortedMarkCounts(l.hostile.marks)
}
