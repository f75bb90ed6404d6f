package daemon

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// timerArmed finds exactly the timers idleTimer and closeRetryTimer name.
func TestTimerArmedMatchesTimerNames(t *testing.T) {
	m := &Machine{timers: map[TimerID]*timer{}}
	m.timers[idleTimer("e-1")] = &timer{}
	m.timers[closeRetryTimer("e-2")] = &timer{}
	cases := []struct {
		prefix, subject string
		want            bool
	}{
		{"idle/", "e-1", true},
		{"close-retry/", "e-2", true},
		{"idle/", "e-2", false},
		{"close-retry/", "e-1", false},
		{"idle/", "e-", false},
	}
	for _, c := range cases {
		got := m.timerArmed(c.prefix, c.subject)
		require.Equalf(t, c.want, got, "timerArmed(%q, %q) = %v, want %v", c.prefix, c.subject, got, c.want)
	}
}

// executorTally finds no twin among distinct Sessions and finds one
// shared, which checkSessionUnique names with its executor count.
func TestSessionsUniqueNamesTheSharedSession(t *testing.T) {
	m := &Machine{executors: map[string]*executor{
		"e-1": {id: "e-1", session: "s-1"},
		"e-2": {id: "e-2", session: "s-2"},
	}}
	if _, _, twin := m.executorTally(); twin != nil {
		require.Fail(t, fmt.Sprintf("twin %s among distinct Sessions", twin.id))
	}
	m.executors["e-3"] = &executor{id: "e-3", session: "s-1"}
	_, _, twin := m.executorTally()
	require.NotNil(t, twin, "no twin of a shared Session")
	defer func() {
		if got, want := fmt.Sprint(recover()), "session s-1 has 2 executors"; !strings.Contains(got, want) {
			require.Fail(t, fmt.Sprintf("panic %q, want it to contain %q", got, want))
		}
	}()
	m.checkSessionUnique(twin)
}
