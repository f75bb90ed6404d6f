package store

// EventCount is len(s.Events(turn)) without copying the events: the
// simulated Core shell asks it after every step for every open
// subscription.
func (s *Memory) EventCount(turn string) int { return len(s.events[turn]) }
