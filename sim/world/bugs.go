package world

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrUnknownBug names a planted bug the world does not have.
var ErrUnknownBug = errors.New("unknown planted bug")

// plantedBug is a planted bug's name (as -bugs and case files spell it)
// and its switch.
type plantedBug struct {
	name string
	set  func(*Bugs)
}

var plantedBugs = []plantedBug{
	{"core_done_overrides_cancel", func(b *Bugs) { b.CoreDoneOverridesCancel = true }},
	{"core_redelivers_unknown_input", func(b *Bugs) { b.CoreRedeliversUnknownInput = true }},
	{"core_resolves_decision_without_receipt", func(b *Bugs) { b.CoreResolvesDecisionWithoutReceipt = true }},
	{"daemon_accepts_before_apply", func(b *Bugs) { b.DaemonAcceptsBeforeApply = true }},
	{"daemon_acks_decision_before_apply", func(b *Bugs) { b.DaemonAcksDecisionBeforeApply = true }},
	{"daemon_forgets_admission_expiry", func(b *Bugs) { b.DaemonForgetsAdmissionExpiry = true }},
	{"daemon_frees_capacity_on_close_failure", func(b *Bugs) { b.DaemonFreesCapacityOnCloseFailure = true }},
	{"daemon_reapplies_repeated_decision", func(b *Bugs) { b.DaemonReappliesRepeatedDecision = true }},
	{"store_accepts_stale_commit", func(b *Bugs) { b.StoreAcceptsStaleCommit = true }},
	{"zombie_sends_uncommitted", func(b *Bugs) { b.ZombieSendsUncommitted = true }},
}

// PlantedBugs lists the names of the planted bugs, sorted.
func PlantedBugs() []string {
	out := make([]string, len(plantedBugs))
	for i, p := range plantedBugs {
		out[i] = p.name
	}
	return out
}

// ParseBugs switches on the named planted bugs. An unknown name is an
// ErrUnknownBug that lists the valid ones.
func ParseBugs(names []string) (Bugs, error) {
	var b Bugs
	for _, n := range names {
		i := slices.IndexFunc(plantedBugs, func(p plantedBug) bool { return p.name == n })
		if i < 0 {
			return Bugs{}, fmt.Errorf("%w %q; planted bugs: %s", ErrUnknownBug, n, strings.Join(PlantedBugs(), ", "))
		}
		plantedBugs[i].set(&b)
	}
	return b, nil
}
