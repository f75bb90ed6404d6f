package core

import "testing"

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
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
