package daemon

import "testing"

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
		if got := m.timerArmed(c.prefix, c.subject); got != c.want {
			t.Errorf("timerArmed(%q, %q) = %v, want %v", c.prefix, c.subject, got, c.want)
		}
	}
}
