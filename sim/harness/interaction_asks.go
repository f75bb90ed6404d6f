package harness

import (
	"math/rand/v2"
	"time"
)

// AskConfig is how native turns ask and how the native side answers
// decisions, beyond the armed fault kinds. A workload shape sets it; the
// zero value is the default Harness: a turn asks in a seeded share of
// turns, never waits for an answer, and every native decision confirms
// within 305 ms.
type AskConfig struct {
	// Always: every native turn asks (one or two questions).
	Always bool
	// Await: a native turn that asked does not end while a question it
	// asked less than AnswerWaitMax ago is unanswered, as an agent waiting
	// for permission does.
	Await bool
	// SlowDecisions is the chance in 8 that a native decision confirms
	// 16–25 s later, past Core's 15 s receipt wait, so that Core records it
	// unknown and may answer again while the first is still being applied.
	SlowDecisions int
	// WithdrawRaces is the chance in 8 that a permission decision races
	// the native side withdrawing the request: permission_cancel is
	// forwarded while the decision is at the daemon, and the decision is
	// not applied.
	WithdrawRaces int
}

// AnswerWaitMax bounds how long a waiting native turn waits for the answer
// to one question (Config.Asks.Await); answerPoll is how often its natural
// end looks again.
const (
	AnswerWaitMax = 20 * time.Second
	answerPoll    = 250 * time.Millisecond
)

// awaitingAnswer reports whether t waits for the answer to a question it
// asked (AskConfig.Await): one is still pending, asked less than
// AnswerWaitMax ago.
func (h *Harness) awaitingAnswer(now time.Time, t *hTurn) bool {
	if !h.dev.Harness.Asks.Await || h.ix == nil {
		return false
	}
	for _, a := range h.ix.byTurn[t.id] {
		if a.state == askPending && now.Sub(a.at) < AnswerWaitMax {
			return true
		}
	}
	return false
}

// chanceIn8 draws from r only when chance is set, so that a Harness
// without the behaviour draws what it drew before.
func chanceIn8(r *rand.Rand, chance int) bool {
	return chance > 0 && r.IntN(8) < chance
}
