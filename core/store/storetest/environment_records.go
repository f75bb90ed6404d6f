package storetest

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// The suspension and Environment preparation tables (core.SuspensionStore,
// core.PreparationStore): records by ID, listed by Seq, replaced in place,
// read as copies, and recovered by core.Restart like the rest of the store.

// SampleSuspension returns a suspension record with every field set.
func SampleSuspension(id string, seq uint64) core.SuspensionRecord {
	return core.SuspensionRecord{ID: id, Seq: seq, EnvironmentID: "env-" + id, Device: "dev-" + id,
		State: core.SuspensionQuiesceUnknown, Attempts: int(seq) + 1, Rollback: true, ErrorCode: "suspension_rejected"}
}

// SamplePreparation returns a preparation record with every field (and
// every field of each step) set.
func SamplePreparation(id string, seq uint64) core.EnvironmentPreparationRecord {
	n := int64(seq)
	return core.EnvironmentPreparationRecord{ID: id, Seq: seq, Device: "dev-" + id,
		EnvironmentID: "3f2b8c1e-0000-4000-8000-00000000000" + strconv.FormatUint(seq%10, 10),
		SessionID:     "9a1d2e3f-0000-4000-8000-00000000000" + strconv.FormatUint(seq%10, 10),
		State:         core.PreparationFailed,
		Session:       "s-" + id,
		Connection:    core.ConnID(seq + 7),
		Steps: []core.PreparationStepRecord{
			{Action: "file", Name: "notes/é.md", Size: 65536*3 + n, State: core.PreparationCompleted,
				Transfer: id + ".x1", ErrorCode: "none", ExitCode: -1},
			{Action: "setup", Name: "make deps", Size: 1, State: core.PreparationFailed,
				Transfer: id + ".x2", ErrorCode: "runtime_preparation_failed", ExitCode: 2},
		},
	}
}

func (m *model) putSuspension(r core.SuspensionRecord) { put(m.suspensions, m, r.ID, r.Seq, r) }
func (m *model) putPreparation(r core.EnvironmentPreparationRecord) {
	r.Steps = slices.Clone(r.Steps)
	put(m.preparations, m, r.ID, r.Seq, r)
}

func clonePreparations(t map[string]entry[core.EnvironmentPreparationRecord]) map[string]entry[core.EnvironmentPreparationRecord] {
	out := maps.Clone(t)
	for _, id := range slices.Sorted(maps.Keys(out)) {
		e := out[id]
		e.rec.Steps = slices.Clone(e.rec.Steps)
		out[id] = e
	}
	return out
}

func (h *rig) suspensionStore() core.SuspensionStore {
	h.t.Helper()
	st, ok := h.st.(core.SuspensionStore)
	if !ok {
		h.t.Fatalf("%T does not implement core.SuspensionStore", h.st)
	}
	return st
}

func (h *rig) preparationStore() core.PreparationStore {
	h.t.Helper()
	st, ok := h.st.(core.PreparationStore)
	if !ok {
		h.t.Fatalf("%T does not implement core.PreparationStore", h.st)
	}
	return st
}

func (h *rig) putSuspension(r core.SuspensionRecord) {
	h.suspensionStore().PutSuspension(r)
	h.model.putSuspension(r)
}

func (h *rig) putPreparation(r core.EnvironmentPreparationRecord) {
	h.preparationStore().PutEnvironmentPreparation(r)
	h.model.putPreparation(r)
}

// verifyEnvironment compares the two tables with the model. A store that
// keeps neither table passes while the model holds no such record.
func (h *rig) verifyEnvironment(when string) {
	h.t.Helper()
	if st, ok := h.st.(core.SuspensionStore); ok || len(h.model.suspensions) > 0 {
		if !ok {
			h.suspensionStore()
		}
		got, want := st.Suspensions(), listed(h.model.suspensions)
		if len(got) != 0 || len(want) != 0 {
			if !reflect.DeepEqual(got, want) {
				h.t.Fatalf("%s: suspensions differ from the contract model:\n  got  %+v\n  want %+v", when, got, want)
			}
		}
	}
	if st, ok := h.st.(core.PreparationStore); ok || len(h.model.preparations) > 0 {
		if !ok {
			h.preparationStore()
		}
		got, want := st.EnvironmentPreparations(), listed(h.model.preparations)
		if len(got) != 0 || len(want) != 0 {
			if !reflect.DeepEqual(got, want) {
				h.t.Fatalf("%s: preparations differ from the contract model:\n  got  %+v\n  want %+v", when, got, want)
			}
		}
	}
}

func scenarioSuspensions(h *rig) {
	if f := zeroField(reflect.ValueOf(SampleSuspension("sus-1", 1)), "SuspensionRecord"); f != "" {
		h.t.Fatalf("sample record leaves %s unset: the round trip would not cover it", f)
	}
	for _, seq := range []uint64{2, 10, 1} {
		h.putSuspension(SampleSuspension("sus-"+strconv.FormatUint(seq, 10), seq))
	}
	h.verify("listing in seq order")
	r := SampleSuspension("sus-2", 2)
	r.State, r.Attempts, r.Rollback, r.ErrorCode = core.SuspensionQuiesced, 9, false, ""
	h.putSuspension(r) // replaces in place; cleared fields stay cleared
	h.verify("after replace")
	h.commit()
	h.putSuspension(SampleSuspension("sus-5", 5))
	r.State = core.SuspensionResumed
	h.putSuspension(r)
	h.crash()
	r = h.model.suspensions["sus-2"].rec
	r.Attempts++
	h.putSuspension(r)
	h.putSuspension(SampleSuspension("sus-7", 7))
	h.commit()
	h.crash()
}

func scenarioPreparations(h *rig) {
	p := SamplePreparation("ep-1", 1)
	for i, f := range []string{zeroField(reflect.ValueOf(p), "EnvironmentPreparationRecord"),
		zeroField(reflect.ValueOf(p.Steps[0]), "Steps[0]"), zeroField(reflect.ValueOf(p.Steps[1]), "Steps[1]")} {
		if f != "" {
			h.t.Fatalf("sample record %d leaves %s unset: the round trip would not cover it", i, f)
		}
	}
	for _, seq := range []uint64{3, 1, 2} {
		h.putPreparation(SamplePreparation("ep-"+strconv.FormatUint(seq, 10), seq))
	}
	h.verify("listing in seq order")
	r := SamplePreparation("ep-3", 3)
	r.State, r.Steps = core.PreparationRunning, r.Steps[:1]
	r.Steps[0].State, r.Steps[0].ErrorCode = core.PreparationRunning, ""
	h.putPreparation(r)
	h.verify("after replace")
	h.commit()
	r.Steps = nil // a record without steps stays without
	h.putPreparation(r)
	h.putPreparation(SamplePreparation("ep-4", 4))
	h.crash()
	r = h.model.preparations["ep-3"].rec
	r.State = core.PreparationCompleted
	h.putPreparation(r)
	h.commit()
	h.crash()
}

func scenarioEnvironmentCopies(h *rig) {
	h.putSuspension(SampleSuspension("sus-1", 1))
	p := SamplePreparation("ep-1", 1)
	h.putPreparation(p)
	p.Steps[0].Name = "changed by the caller after the write"
	h.verify("after the caller changed its record")
	got := h.preparationStore().EnvironmentPreparations()
	got[0].Steps[0].State = core.PreparationRejected
	h.verify("after the caller changed a listing")
	h.commit()
	h.crash()
	got = h.preparationStore().EnvironmentPreparations()
	got[0].Steps[1].ExitCode = 99
	h.verify("after the caller changed a listing read after reopen")
}

// scenarioEnvironmentRestart: core.Restart over the reopened store turns
// a suspension awaiting its reply into its unknown state and a running
// preparation into unknown, leaves a resumed suspension resumed (a second
// resume is refused, so a restart never resumes twice), and writes its
// changes back to the store.
func scenarioEnvironmentRestart(h *rig) {
	now := base
	pending := SampleSuspension("sus-1", 1)
	pending.State, pending.Rollback, pending.ErrorCode = core.SuspensionQuiescing, false, ""
	resumed := SampleSuspension("sus-2", 2)
	resumed.State, resumed.EnvironmentID = core.SuspensionResumed, "env-other"
	resuming := SampleSuspension("sus-3", 3)
	resuming.State, resuming.EnvironmentID = core.SuspensionResuming, "env-third"
	prep := SamplePreparation("ep-1", 1)
	prep.State, prep.Steps[1].State = core.PreparationRunning, core.PreparationRunning
	for _, r := range []core.SuspensionRecord{pending, resumed, resuming} {
		h.putSuspension(r)
	}
	h.putPreparation(prep)
	h.commit()
	h.crash()
	m := core.Restart(core.Config{}, h.st)
	pending.State, resuming.State = core.SuspensionQuiesceUnknown, core.SuspensionResumeUnknown
	h.model.putSuspension(pending)
	h.model.putSuspension(resuming)
	prep.State = core.PreparationUnknown
	prep.Steps[1].State, prep.Steps[1].ErrorCode = core.PreparationUnknown, wire.TransferUnconfirmed
	h.model.putPreparation(prep)
	h.verify("after core.Restart")
	effs := m.Step(now.Add(time.Second), core.ResumeEnvironment{Call: "c1", SuspendID: "sus-2"})
	if r, ok := effs[0].(core.APIResult); !ok || r.Err != core.ErrSuspensionTerminal {
		h.t.Fatalf("resume of a resumed suspension after restart: %+v, want ErrSuspensionTerminal", effs)
	}
	effs = m.Step(now.Add(time.Second), core.ReadSuspension{Call: "c2", SuspendID: "sus-1"})
	if r, ok := effs[0].(core.APIResult); !ok || r.Value == nil || *r.Value.(*core.SuspensionRecord) != pending {
		h.t.Fatalf("suspension after restart: %+v, want %+v", effs, pending)
	}
	h.commit()
	h.crash()
}
