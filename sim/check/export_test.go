package check

// HostileRefusals returns, per action, the forgeries refused as the seeds
// document, sorted by action.
func (l *Ledger) HostileRefusals() []MarkCount {
	return sortedMarkCounts(l.hostile.marks)
}

// Merge adds another tally, e.g. from another shard.
func (t *MarkTally) Merge(o *MarkTally) {
	t.seeds += o.seeds
	for m, n := range o.seedsHit { //tidy:sorted additions commute
		t.seedsHit[m] += n
	}
	for m, n := range o.hitsTotal { //tidy:sorted additions commute
		t.hitsTotal[m] += n
	}
}
