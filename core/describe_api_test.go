package core

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The API lines of the trace keep their exact text (fingerprints hash it).
func TestAPIDescribeText(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{ReadTurn{Call: "c-1", Turn: "t-1"}.Describe(), "api read-turn call=c-1 turn=t-1"},
		{APIResult{Call: "c-2", Value: &TurnView{ID: "t-1", State: TurnRunning, InputCursor: 2, Events: 17}}.Describe(),
			"api-result call=c-2 turn=t-1 state=running code= cursor=2 events=17"},
		{APIResult{Call: "c-3", Value: &TurnView{ID: "t-2", State: TurnFailed, ErrorCode: "x_y", InputCursor: -1}}.Describe(),
			"api-result call=c-3 turn=t-2 state=failed code=x_y cursor=-1 events=0"},
		{APIResult{Call: "c-4"}.Describe(), "api-result call=c-4 ok"},
		{APIResult{Call: "c-5", Err: ErrUnknownTurn}.Describe(), `api-result call=c-5 err="core: unknown turn"`},
		{APIResult{Call: "c-6", Value: SessionCreated{Session: "s-1"}}.Describe(), "api-result call=c-6 session=s-1"},
		{APIResult{Call: "c-7", Value: TurnSubmitted{Turn: "t-1"}}.Describe(), "api-result call=c-7 turn=t-1"},
		{APIResult{Call: "c-8", Value: InputSteered{Input: "in-1"}}.Describe(), "api-result call=c-8 input=in-1"},
		{APIResult{Call: "c-9", Value: DecisionDelivered{Delivery: "d-1"}}.Describe(), "api-result call=c-9 delivery=d-1"},
		{APIResult{Call: "c-10", Value: TurnPage{Turns: make([]TurnView, 2), NextAfter: "t-2"}}.Describe(),
			"api-result call=c-10 turns=2 next=t-2"},
		{APIResult{Call: "c-11", Value: SuspendRef{Suspend: "sus-1"}}.Describe(), "api-result call=c-11 suspend=sus-1"},
		{APIResult{Call: "c-12", Value: &SuspensionRecord{ID: "sus-1", State: SuspensionQuiesced}}.Describe(),
			"api-result call=c-12 suspend=sus-1 state=quiesced"},
		{APIResult{Call: "c-13", Value: PreparationStarted{Preparation: "p-1"}}.Describe(), "api-result call=c-13 preparation=p-1"},
		{APIResult{Call: "c-14", Value: &EnvironmentPreparationRecord{ID: "p-1", State: PreparationCompleted}}.Describe(),
			"api-result call=c-14 preparation=p-1 state=completed"},
		{APIResult{Call: "c-15", Value: Preparations{{ID: "p-1"}}}.Describe(), "api-result call=c-15 ok"},
		{APIResult{Call: "c-16", Value: &WorkspaceResult{Outcome: WorkspaceCompleted, Data: []byte("abc")}}.Describe(),
			"api-result call=c-16 workspace=completed code= bytes=3 truncated=false entries=0 size=0 mutation= archive=0"},
	} {
		require.Equalf(t, c.want, c.got, "got %q, want %q", c.got, c.want)
	}
}
