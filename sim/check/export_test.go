package check

// HostileRefusals returns, per action, the forgeries refused as the seeds
// document, sorted by action.
func (l *Ledger) HostileRefusals() []MarkCount {
	return sortedMarkCounts(l.hostile.marks)
}

// Native write outcomes as the Harness reports them (WriteReturned).
const (
	WriteWritten = "written"
	WriteUnknown = "unknown"
)
