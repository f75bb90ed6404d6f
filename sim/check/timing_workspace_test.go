package check

import (
	"testing"
	"time"
)

// TestWorkspaceWaitOracles: a timeout at exactly the wait decides it; a
// timeout before or after, an answer after the wait, or no answer at all
// by then is a violation; a Core crash excuses the calls it had.
func TestWorkspaceWaitOracles(t *testing.T) {
	const s = int64(time.Second)
	cases := []struct {
		name    string
		timer   string
		answer  int64 // -1: never
		code    string
		crash   bool
		want    int
		decided int
	}{
		{"read times out at 17 s", TimerWorkspaceRead, 17 * s, "timeout", false, 0, 1},
		{"read answered in time", TimerWorkspaceRead, 3 * s, "", false, 0, 0},
		{"read times out early", TimerWorkspaceRead, 16 * s, "timeout", false, 1, 0},
		{"read times out late", TimerWorkspaceRead, 18 * s, "timeout", false, 1, 0},
		{"read answered after its wait", TimerWorkspaceRead, 17*s + 1, "cleanup_unconfirmed", false, 1, 0},
		{"read never answered", TimerWorkspaceRead, -1, "", false, 1, 0},
		{"write times out at 195 s", TimerWorkspaceWrite, 195 * s, "timeout", false, 0, 1},
		{"write times out at 180 s", TimerWorkspaceWrite, 180 * s, "timeout", false, 1, 0},
		{"export times out at 180 s", TimerWorkspaceExport, 180 * s, "timeout", false, 0, 1},
		{"export times out at 17 s", TimerWorkspaceExport, 17 * s, "timeout", false, 1, 0},
		{"Core crashed", TimerWorkspaceWrite, -1, "", true, 0, 0},
	}
	for _, c := range cases {
		l := NewLedger()
		l.CoreWorkspaceCall(10*s, "w/1", c.timer)
		if c.crash {
			l.NodeCrashed(11*s, CoreNode)
		}
		if c.answer >= 0 {
			l.CoreWorkspaceAnswered(10*s+c.answer, "w/1", c.code)
		}
		l.advance(1000 * s)
		if got := len(violationsOf(l, "timing_"+c.timer)); got != c.want {
			t.Errorf("%s: %d violations, want %d", c.name, got, c.want)
		}
		if got := l.timing.decided[c.timer]; got != c.decided {
			t.Errorf("%s: decided %d, want %d", c.name, got, c.decided)
		}
	}
}
