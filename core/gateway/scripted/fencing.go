package scripted

import "github.com/turnstile-sim/turnstile/wire"

// fenceLog counts the suspension requests a Runtime received.
type fenceLog struct {
	quiesces map[string]int    // suspend_id -> environment_quiesce frames
	resumes  map[string][]bool // suspend_id -> rollback flag of each environment_resume
}

// fence accepts a quiesce or a resume, echoing both IDs.
func (r *Runtime) fence(id string, p wire.Payload) [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fences.quiesces == nil {
		r.fences.quiesces, r.fences.resumes = map[string]int{}, map[string][]bool{}
	}
	switch p := p.(type) {
	case wire.EnvironmentQuiesce:
		r.fences.quiesces[p.SuspendID]++
		return [][]byte{must(wire.Frame{ID: id, Payload: wire.EnvironmentQuiesced{EnvironmentID: p.EnvironmentID,
			SuspendID: p.SuspendID, Accepted: true}})}
	case wire.EnvironmentResume:
		r.fences.resumes[p.SuspendID] = append(r.fences.resumes[p.SuspendID], p.Rollback)
		return [][]byte{must(wire.Frame{ID: id, Payload: wire.EnvironmentResumed{EnvironmentID: p.EnvironmentID,
			SuspendID: p.SuspendID, Accepted: true}})}
	}
	return nil
}

// Resumes returns, per suspend_id, the rollback flag of every
// environment_resume received, in order.
func (r *Runtime) Resumes() map[string][]bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string][]bool, len(r.fences.resumes))
	for k, v := range r.fences.resumes {
		out[k] = append([]bool(nil), v...)
	}
	return out
}

// Quiesces returns how many environment_quiesce frames named each
// suspend_id.
func (r *Runtime) Quiesces() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.fences.quiesces))
	for k, v := range r.fences.quiesces {
		out[k] = v
	}
	return out
}
