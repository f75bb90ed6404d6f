package clirunner

import "time"

// awaitGroup waits until no member of the group is running or the deadline.
func (p *Process) awaitGroup(deadline time.Time) {
	for p.grp.live() && time.Now().Before(deadline) {
		t := time.NewTimer(min(groupPoll, time.Until(deadline)))
		<-t.C
	}
}
