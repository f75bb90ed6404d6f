package world

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/harness"
)

// dumpState renders, when the first violation is found, the state of every
// machine in the world: Core's durable Turns with their inputs and cursors
// (and its open preparations while it runs), each daemon's admissions,
// executors, Turns and capacity, and the simulated Harness's ground truth
// for the runs the violation names. It is read, never acted on.
func (u *universe) dumpState(v sim.Violation) []string {
	out := []string{"state at step " + fmt.Sprint(v.Step) + " (" + v.Check + ")"}
	out = append(out, u.dumpCore()...)
	for _, d := range u.devices {
		out = append(out, u.dumpDevice(d.ID, d.Node())...)
	}
	return append(out, u.dumpTruth(v.Message)...)
}

func (u *universe) dumpCore() []string {
	up := "down"
	if u.w.Up(coreID) {
		up = "up"
	}
	out := []string{"core " + up}
	for _, t := range u.store.Memory.Turns() {
		out = append(out, "core turn "+describeTurnRecord(t, u.store.Memory.Inputs(t.ID)))
	}
	if u.w.Up(coreID) && u.core != nil {
		for _, p := range u.core.m.Preparations() {
			out = append(out, fmt.Sprintf("core preparation %s turn=%s conn=%s handle=%s revision=%d start_sent=%v",
				p.RequestID, orNone(p.Turn), p.Conn, orNone(p.Handle), p.Revision, p.StartSent))
		}
	}
	return out
}

func describeTurnRecord(t core.TurnRecord, inputs []core.InputRecord) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s session=%s state=%s run=%s attempt=%d device=%s handle=%s cursor=%d events=%d",
		t.ID, t.Session, t.State, orNone(t.RunID), t.Attempt, orNone(t.Device), orNone(t.Handle), t.InputCursor,
		t.EventCount)
	if t.Cancel != core.CancelNone {
		fmt.Fprintf(&b, " cancel=%s attempts=%d", t.Cancel, t.CancelAttempts)
	}
	if t.ErrorCode != "" {
		fmt.Fprintf(&b, " error=%s", t.ErrorCode)
	}
	for _, in := range inputs {
		fmt.Fprintf(&b, " input%s=%s", in.ID, in.State)
	}
	return b.String()
}

func (u *universe) dumpDevice(id sim.NodeID, n *harness.Daemon) []string {
	if !u.w.Up(id) || n == nil {
		return []string{string(id) + " down"}
	}
	s := n.Machine().Snapshot()
	out := []string{fmt.Sprintf("%s connected=%v gen=%d shutting_down=%v capacity active=%d executors=%d idle=%d closing=%d records=%d",
		id, s.Connected, s.Conn, s.ShuttingDown, s.Capacity.Active, s.Capacity.Executors, s.Capacity.Idle,
		s.Capacity.Closing, s.Capacity.Records)}
	for _, a := range s.Admissions {
		out = append(out, fmt.Sprintf("%s admission %s handle=%s executor=%s revision=%d state=%s run=%s expires=%s",
			id, a.RequestID, a.Handle, a.Executor, a.Revision, a.State, orNone(a.RunID), sim.FormatTime(a.ExpiresAt)))
	}
	for _, e := range s.Executors {
		out = append(out, fmt.Sprintf("%s executor %s session=%s phase=%s turn=%s close_failed=%v",
			id, e.ID, e.Session, e.Phase, orNone(string(e.Turn)), e.CloseFailed))
	}
	for _, t := range s.Turns {
		var ins []string
		for _, in := range t.Inputs {
			ins = append(ins, in.InputID+"="+in.State)
		}
		out = append(out, fmt.Sprintf("%s turn %s run=%s executor=%s state=%s cancel=%v inputs=[%s]",
			id, t.ID, t.RunID, t.Executor, t.State, t.CancelRequested, strings.Join(ins, " ")))
	}
	return out
}

// runIDs finds the run (turn) IDs a violation message names.
var runIDs = regexp.MustCompile(`\bt-[0-9]+\b`)

func (u *universe) dumpTruth(message string) []string {
	runs := slices.Compact(slices.Sorted(slices.Values(runIDs.FindAllString(message, -1))))
	var out []string
	for _, d := range u.devices {
		n := d.Node()
		if n == nil || !u.w.Up(d.ID) {
			continue
		}
		truth := n.Harness().Truth()
		for _, run := range runs {
			for _, t := range truth.TurnsOfRun(run) {
				out = append(out, fmt.Sprintf("%s truth turn %s run=%s executor=%s settled=%v outcome=%s cancelled=%v",
					d.ID, t.ID, t.Run, t.Executor, t.Settled, orNone(t.Outcome), t.Cancelled))
			}
		}
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
