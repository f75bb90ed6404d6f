package sim

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

func validSchedule() Schedule {
	return Schedule{Seed: 1, Workload: 3, Heal: 10 * time.Second,
		Network: NetworkConfig{LatencyMin: int64(time.Millisecond), LatencyMax: int64(5 * time.Millisecond)},
		Faults: []Fault{{At: time.Second, Kind: FaultStall, For: time.Second},
			{At: 2 * time.Second, Kind: FaultSlow, For: time.Second, Extra: time.Millisecond}}}
}

func TestScheduleValidateRejects(t *testing.T) {
	cases := []struct {
		name string
		edit func(s *Schedule)
		want error
	}{
		{"negative fault at", func(s *Schedule) { s.Faults[0].At = -1 }, ErrScheduleNegative},
		{"negative for", func(s *Schedule) { s.Faults[0].For = -time.Second }, ErrScheduleNegative},
		{"negative extra", func(s *Schedule) { s.Faults[1].Extra = -1 }, ErrScheduleNegative},
		{"negative heal", func(s *Schedule) { s.Heal = -1; s.Faults = nil }, ErrScheduleNegative},
		{"negative workload", func(s *Schedule) { s.Workload = -1 }, ErrScheduleNegative},
		{"negative latency", func(s *Schedule) { s.Network.LatencyMin = -1 }, ErrScheduleNegative},
		{"negative detect", func(s *Schedule) { s.Network.DetectMax = -1 }, ErrScheduleNegative},
		{"latency out of order", func(s *Schedule) { s.Network.LatencyMin = s.Network.LatencyMax + 1 }, ErrScheduleLatency},
		{"fault at heal", func(s *Schedule) { s.Faults[1].At = s.Heal }, ErrScheduleFaultAfterHeal},
		{"fault after heal", func(s *Schedule) { s.Faults[0].At = s.Heal + time.Hour }, ErrScheduleFaultAfterHeal},
		{"fault without kind", func(s *Schedule) { s.Faults[0].Kind = "" }, ErrScheduleFaultKind},
		{"at plus for overflows", func(s *Schedule) { s.Faults[1].For = math.MaxInt64 }, ErrScheduleTooLong},
		{"huge extra", func(s *Schedule) { s.Faults[1].Extra = math.MaxInt64 }, ErrScheduleTooLong},
		{"huge heal", func(s *Schedule) { s.Heal = math.MaxInt64 }, ErrScheduleTooLong},
		{"huge latency", func(s *Schedule) { s.Network.LatencyMax = math.MaxInt64 }, ErrScheduleTooLong},
	}
	if err := validSchedule().Validate(); err != nil {
		t.Fatalf("valid schedule rejected: %v", err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := validSchedule()
			tc.edit(&s)
			if err := s.Validate(); !errors.Is(err, tc.want) {
				t.Fatalf("Validate = %v, want %v", err, tc.want)
			}
			if _, err := ParseSchedule(s.MarshalIndent()); !errors.Is(err, tc.want) {
				t.Fatalf("ParseSchedule = %v, want %v", err, tc.want)
			}
			func() {
				defer func() {
					if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "sim: invalid schedule") {
						t.Fatalf("Replay recovered %v, want an invalid-schedule panic", r)
					}
				}()
				Replay(s, toyOptions(toyConfig{}))
			}()
		})
	}
}

func TestGeneratedAndShrunkSchedulesAreValid(t *testing.T) {
	opts := toyOptions(toyConfig{})
	opts.Swarm.All = true
	for seed := uint64(1); seed <= 200; seed++ {
		if err := drawSchedule(seed, opts.Swarm, opts.Setup).Validate(); err != nil {
			t.Fatalf("seed %d drew an invalid schedule: %v", seed, err)
		}
	}
	buggy := toyOptions(toyConfig{noDedup: true})
	r := sweepForBug(t, buggy)
	sh := Shrink(r, buggy)
	if err := sh.Schedule.Validate(); err != nil {
		t.Fatalf("shrink produced an invalid schedule: %v\n%s", err, sh.Schedule.MarshalIndent())
	}
	for _, f := range sh.Schedule.Faults {
		if f.At >= sh.Schedule.Heal {
			t.Fatalf("shrunk fault %s not before heal %s", f, sh.Schedule.Heal)
		}
	}
}
