package harness

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// SubagentRecorder is an optional extension of Recorder: NativeSubagent
// reports one subagent observation (subagent_identity, subagent_lifecycle,
// subagent_turn or subagent_item) a Run's native Turn emitted, in the
// Turn's output order. It is the ground truth of what the Harness
// reported about its subagents.
type SubagentRecorder interface {
	NativeSubagent(at int64, device, run string, p wire.Payload)
	// NativeSubagentUnasked reports one subagent observation a Run's
	// native Turn emitted although its executor was not prepared with
	// observe_subagent_identities: the daemon must not forward it.
	NativeSubagentUnasked(at int64, device, run string, p wire.Payload)
}

// planUnasked draws, for a Turn whose executor was not prepared with
// observe_subagent_identities, whether the native Turn reports a subagent
// anyway (one in eight Turns): a Harness whose engine spawns children on
// its own, as a real one may. The daemon forwards subagent observations
// only for a Turn that asked for them, so it must drop this one
// (subagent_record). The draws use their own stream.
func (h *Harness) planUnasked(t *hTurn) []wire.Payload {
	if h.su == nil {
		h.su = h.w.Rand("harness-subagents-unasked:" + string(h.dev.ID))
	}
	if h.su.IntN(8) != 0 {
		return nil
	}
	id := t.run + "/unasked"
	return []wire.Payload{wire.SubagentIdentity{NativeID: id, ParentNativeID: "root", NativeCreatedAt: 1,
		ParentTurnID: t.run, SourceItemID: "spawn-unasked"}}
}

// planSubagents draws, for a Turn whose executor was prepared with
// observe_subagent_identities, the subagents it spawns (none for half of
// them): one or two children, each with its identity, a running
// lifecycle, one or two subagent turns of up to two items (message or
// subagent_coordination), and for some a closed lifecycle. A completed
// subagent turn does not close its subagent. The children's reports
// interleave; each child's own order is identity, lifecycle, then its
// turns with their items. The draws use their own stream, so the rest of
// the Harness draws what it drew before.
func (h *Harness) planSubagents(t *hTurn) []wire.Payload {
	if h.sr == nil {
		h.sr = h.w.Rand("harness-subagents:" + string(h.dev.ID))
	}
	r := h.sr
	if r.IntN(2) == 0 {
		return nil
	}
	var kids [][]wire.Payload
	for k := 1; k <= 1+r.IntN(2); k++ {
		id := t.run + "/sa-" + strconv.Itoa(k)
		name := "helper-" + strconv.Itoa(k)
		parent := "root"
		if k == 2 && r.IntN(2) == 0 {
			parent = t.run + "/sa-1" // a grandchild
		}
		seq := []wire.Payload{
			wire.SubagentIdentity{NativeID: id, ParentNativeID: parent, NativeCreatedAt: int64(k),
				ParentTurnID: t.run, SourceItemID: "spawn-" + strconv.Itoa(k), Name: &name},
			wire.SubagentLifecycle{NativeID: id, EffectID: "effect-" + strconv.Itoa(k), Status: "running", OccurredAtMS: int64(k)},
		}
		for j := 1; j <= 1+r.IntN(2); j++ {
			tid := "turn-" + strconv.Itoa(j)
			seq = append(seq, wire.SubagentTurn{NativeID: id, TurnID: tid, Status: "in_progress", CreatedAtMS: int64(j)})
			for p := 0; p < r.IntN(3); p++ {
				seq = append(seq, subagentItem(id, tid, p, r.IntN(2) == 0))
			}
			started, completed := int64(j), int64(j+1)
			seq = append(seq, wire.SubagentTurn{NativeID: id, TurnID: tid, Status: "completed", CreatedAtMS: int64(j),
				StartedAtMS: &started, CompletedAtMS: &completed})
		}
		if r.IntN(2) == 0 {
			seq = append(seq, wire.SubagentLifecycle{NativeID: id, EffectID: "close-" + strconv.Itoa(k), Status: "closed", OccurredAtMS: int64(k + 9)})
		}
		kids = append(kids, seq)
	}
	var out []wire.Payload
	for len(kids) > 0 {
		k := r.IntN(len(kids))
		out = append(out, kids[k][0])
		if kids[k] = kids[k][1:]; len(kids[k]) == 0 {
			kids = append(kids[:k], kids[k+1:]...)
		}
	}
	return out
}

func subagentItem(native, turn string, pos int, coordination bool) wire.SubagentItem {
	item := "item-" + strconv.Itoa(pos)
	var raw []byte
	kind := "message"
	if coordination {
		kind = "subagent_coordination"
		raw, _ = json.Marshal(map[string]any{"id": item, "kind": "send_message", "status": "completed",
			"actor_id": native, "recipients": []string{"root"}, "text": "progress", "model": nil, "reasoning_effort": nil})
	} else {
		raw, _ = json.Marshal(map[string]any{"role": "assistant", "text": "step " + strconv.Itoa(pos)})
	}
	return wire.SubagentItem{NativeID: native, TurnID: turn, ItemID: item, Position: int32(pos), Kind: kind, Payload: raw}
}

// emitSubagents emits the planned reports due by progress step i of
// steps, in order; what is left when the native Turn ends is never
// emitted.
func (h *Harness) emitSubagents(now time.Time, t *hTurn, i, steps int) {
	due := len(t.subagents) * i / steps
	for ; t.subNext < due; t.subNext++ {
		p := t.subagents[t.subNext]
		if r, ok := h.dev.Recorder.(SubagentRecorder); ok && t.unasked {
			r.NativeSubagentUnasked(at(now), string(h.dev.ID), t.run, p)
		} else if ok {
			r.NativeSubagent(at(now), string(h.dev.ID), t.run, p)
		}
		h.event(now, t, p)
	}
}
