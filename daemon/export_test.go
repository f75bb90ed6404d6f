package daemon

import "time"

// Views of the machine's state that only tests read.

// AppliedDecisions returns how many applied decisions are remembered now.
func (m *Machine) AppliedDecisions() int { return len(pruneAppliedAt(m.ix.applied, m.now)) }

// HeldPrepares returns how many native Prepares wait for an installation.
func (m *Machine) HeldPrepares() int { return len(m.xfer.held) }

// WallOffset returns the accumulated wall-clock offset (the sum of every
// WallClockStep so far).
func (m *Machine) WallOffset() time.Duration { return m.wallOffset }

// Capacity returns the counts the limits are checked against.
func (m *Machine) Capacity() Capacity { return m.capacity() }

// InstalledSnapshot returns the installed capabilities, in install order.
func (m *Machine) InstalledSnapshot() []Installed { return m.installedSnapshot() }
