package core

import (
	"bytes"
	"errors"
	"slices"

	"github.com/turnstile-sim/turnstile/wire"
)

// subagentsPerTurnMax bounds the subagent observations Core records per
// Turn; further observations of the Turn are not recorded.
const subagentsPerTurnMax = 512

// SubagentRecord is one subagent observation of a Turn's Run
// (subagent_identity, subagent_lifecycle, subagent_turn or subagent_item),
// in arrival order. Frame is the observation's envelope as Core accepted
// it (wire.Encode), so an operator reads every field the Runtime reported.
type SubagentRecord struct {
	RunID    string
	Type     string // the wire type
	NativeID string
	TurnID   string `json:",omitempty"` // the subagent's turn (subagent_turn, subagent_item)
	ItemID   string `json:",omitempty"` // subagent_item
	Status   string `json:",omitempty"` // subagent_lifecycle, subagent_turn
	Frame    []byte
}

// SubagentView is the public projection of one subagent observation.
type SubagentView struct {
	RunID, Type, NativeID, TurnID, ItemID, Status string
	Frame                                         []byte
}

func subagentViews(recs []SubagentRecord) []SubagentView {
	var out []SubagentView
	for _, r := range recs {
		out = append(out, SubagentView{RunID: r.RunID, Type: r.Type, NativeID: r.NativeID, TurnID: r.TurnID,
			ItemID: r.ItemID, Status: r.Status, Frame: slices.Clone(r.Frame)})
	}
	return out
}

// Why Core refuses a subagent observation (it is then not recorded and
// nothing durable changes; the Run goes on).
var (
	// ErrSubagentNotObserved: the Turn's Session did not ask for subagent
	// observations (its Agent's multi_agent is off, so Core prepared it
	// with disable_subagents and without observe_subagent_identities).
	ErrSubagentNotObserved = errors.New("core: subagent observations were not asked for")
	// ErrSubagentUnidentified: a lifecycle, turn or item of a native_id
	// whose subagent_identity the Run has not reported.
	ErrSubagentUnidentified = errors.New("core: subagent observation before its identity")
	// ErrSubagentIdentified: a second subagent_identity for a native_id.
	ErrSubagentIdentified = errors.New("core: subagent identity reported twice")
	// ErrSubagentTurnUnknown: a subagent_item of a subagent turn the Run
	// has not reported (subagent_turn) for that native_id.
	ErrSubagentTurnUnknown = errors.New("core: subagent item before its turn")
	// ErrSubagentDuplicate: an observation identical to one the Run
	// already reported (a replayed or duplicated frame is no new native
	// fact).
	ErrSubagentDuplicate = errors.New("core: subagent observation repeated")
	// ErrSubagentRunEnded: an observation after the Run's terminal result.
	ErrSubagentRunEnded = errors.New("core: subagent observation after the run's done")
	// ErrSubagentLimit: the Turn already holds subagentsPerTurnMax.
	ErrSubagentLimit = errors.New("core: subagent observation limit reached")
)

// subagentRecord is the record of observation p of run, or the named
// reason it is refused given the Turn's earlier records.
func subagentRecord(recs []SubagentRecord, run string, p wire.Payload) (SubagentRecord, error) {
	if err := wire.Validate(p); err != nil {
		return SubagentRecord{}, err
	}
	if len(recs) >= subagentsPerTurnMax {
		return SubagentRecord{}, ErrSubagentLimit
	}
	r := SubagentRecord{RunID: run, Type: p.MessageType()}
	switch v := p.(type) {
	case wire.SubagentIdentity:
		r.NativeID = v.NativeID
	case wire.SubagentLifecycle:
		r.NativeID, r.Status = v.NativeID, v.Status
	case wire.SubagentTurn:
		r.NativeID, r.TurnID, r.Status = v.NativeID, v.TurnID, v.Status
	case wire.SubagentItem:
		r.NativeID, r.TurnID, r.ItemID = v.NativeID, v.TurnID, v.ItemID
	default:
		return SubagentRecord{}, wire.ErrUnknownType
	}
	identified := slices.ContainsFunc(recs, func(o SubagentRecord) bool {
		return o.RunID == run && o.Type == wire.TypeSubagentIdentity && o.NativeID == r.NativeID
	})
	switch {
	case r.Type == wire.TypeSubagentIdentity && identified:
		return SubagentRecord{}, ErrSubagentIdentified
	case r.Type != wire.TypeSubagentIdentity && !identified:
		return SubagentRecord{}, ErrSubagentUnidentified
	case r.Type == wire.TypeSubagentItem && !slices.ContainsFunc(recs, func(o SubagentRecord) bool {
		return o.RunID == run && o.Type == wire.TypeSubagentTurn && o.NativeID == r.NativeID && o.TurnID == r.TurnID
	}):
		return SubagentRecord{}, ErrSubagentTurnUnknown
	}
	b, err := wire.Encode(wire.Frame{ID: run, Payload: p})
	if err != nil {
		return SubagentRecord{}, err
	}
	if slices.ContainsFunc(recs, func(o SubagentRecord) bool { return o.RunID == run && bytes.Equal(o.Frame, b) }) {
		return SubagentRecord{}, ErrSubagentDuplicate
	}
	r.Frame = b
	return r, nil
}

// onSubagent records a subagent observation of t's Run when the Session
// asked for them, the Run has not ended and the observation is fresh
// (subagentRecord); a refused one is not recorded and changes nothing.
func (m *Machine) onSubagent(t *turn, p wire.Payload) {
	if m.refuseSubagent(t, p) != nil {
		return
	}
	r, err := subagentRecord(t.rec.Subagents, t.rec.RunID, p)
	if err != nil {
		return
	}
	t.rec.Subagents = append(slices.Clip(t.rec.Subagents), r)
	m.saveTurn(t)
}

func (m *Machine) refuseSubagent(t *turn, p wire.Payload) error {
	if s := m.sessions[t.rec.Session]; s == nil || !s.rec.Agent.MultiAgent {
		return ErrSubagentNotObserved
	}
	if t.rec.Done != nil || t.rec.State.Terminal() {
		return ErrSubagentRunEnded
	}
	return nil
}
