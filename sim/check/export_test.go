package check

import "strings"

// HostileRefusals returns, per action, the forgeries refused as the seeds
// document, sorted by action.
func (l *Ledger) HostileRefusals() []MarkCount {
	var out []MarkCount
	for _, m := range l.Marks() {
		if a, ok := strings.CutPrefix(string(m.Mark), string(HostileMark(""))); ok {
			out = append(out, MarkCount{Mark: Mark(a), Count: m.Count})
		}
	}
	return out
}

// Native write outcomes as the Harness reports them (WriteReturned).
const (
	WriteWritten = "written"
	WriteUnknown = "unknown"
)
