package sim

import (
	"errors"
	"fmt"
	"time"
)

// Errors of Schedule.Validate. Each error Validate returns wraps one of them
// and names the offending field.
var (
	// ErrScheduleNegative: a time, duration or size below zero.
	ErrScheduleNegative = errors.New("sim: schedule: negative value")
	// ErrScheduleLatency: network latency bounds out of order.
	ErrScheduleLatency = errors.New("sim: schedule: latency_min above latency_max")
	// ErrScheduleFaultAfterHeal: a fault at or after the heal time, where
	// nothing would ever end it.
	ErrScheduleFaultAfterHeal = errors.New("sim: schedule: fault at or after heal")
	// ErrScheduleFaultKind: a fault without a kind.
	ErrScheduleFaultKind = errors.New("sim: schedule: fault without a kind")
	// ErrScheduleTooLong: an instant, or a fault's end, beyond ScheduleSpanMax.
	ErrScheduleTooLong = errors.New("sim: schedule: beyond the longest schedule")
)

// ScheduleSpanMax bounds every instant and duration of a schedule (about 36
// years of virtual time), so that the kernel's sums of times never overflow.
const ScheduleSpanMax = time.Duration(1 << 60)

// Validate checks a schedule before it is replayed: no negative values,
// latency bounds in order, every fault of a known shape strictly before the
// heal time, and nothing (fault ends included) beyond ScheduleSpanMax.
// Whether each fault kind exists depends on the world and is checked when
// the run starts. ParseSchedule returns Validate's error; Run and Replay
// panic on an invalid schedule, a programmer error.
func (s Schedule) Validate() error {
	nonNeg := []struct {
		name string
		v    int64
	}{{"workload", int64(s.Workload)}, {"heal", int64(s.Heal)}, {"latency_min_ns", s.Network.LatencyMin},
		{"latency_max_ns", s.Network.LatencyMax}, {"detect_max_ns", s.Network.DetectMax}}
	for _, f := range nonNeg {
		if f.v < 0 {
			return fmt.Errorf("%w: %s=%d", ErrScheduleNegative, f.name, f.v)
		}
		if f.name != "workload" && f.v > int64(ScheduleSpanMax) {
			return fmt.Errorf("%w: %s=%d", ErrScheduleTooLong, f.name, f.v)
		}
	}
	if s.Network.LatencyMin > s.Network.LatencyMax {
		return fmt.Errorf("%w: %d > %d", ErrScheduleLatency, s.Network.LatencyMin, s.Network.LatencyMax)
	}
	for i, f := range s.Faults {
		if err := f.validate(s.Heal); err != nil {
			return fmt.Errorf("%w (fault %d: %s)", err, i, f)
		}
	}
	return nil
}

func (f Fault) validate(heal time.Duration) error {
	switch {
	case f.Kind == "":
		return ErrScheduleFaultKind
	case f.At < 0 || f.For < 0 || f.Extra < 0:
		return ErrScheduleNegative
	case f.At >= heal:
		return fmt.Errorf("%w at %s", ErrScheduleFaultAfterHeal, FormatTime(Epoch.Add(heal)))
	case f.For > ScheduleSpanMax-f.At || f.Extra > ScheduleSpanMax:
		return ErrScheduleTooLong
	}
	return nil
}
