package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
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

func TestScheduleJSONWritesDurationStrings(t *testing.T) {
	s := Schedule{Seed: 4, Workload: 2, Heal: 9884998130,
		Network: NetworkConfig{LatencyMin: 3877189, LatencyMax: 36470193, DetectMax: 301340075},
		Enabled: []KindSetting{{Kind: FaultConnLoss, Gap: 200 * time.Millisecond}},
		Faults:  []Fault{{At: 185742775, Kind: FaultSlow, Pick: 9, For: time.Second, Extra: 5 * time.Millisecond}}}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"seed":4,"workload":2,"heal":"9.88499813s","network":{"latency_min":"3.877189ms",` +
		`"latency_max":"36.470193ms","detect_max":"301.340075ms"},"enabled":[{"kind":"conn_loss","gap":"200ms"}],` +
		`"faults":[{"at":"185.742775ms","kind":"slow","pick":9,"for":"1s","extra":"5ms"}]}`
	if string(b) != want {
		t.Fatalf("schedule JSON\n got %s\nwant %s", b, want)
	}
	back, err := ParseSchedule(b)
	if err != nil || !reflect.DeepEqual(back, s) {
		t.Fatalf("round trip: %+v %v", back, err)
	}
}

func TestScheduleJSONReadsIntegerNanosecondsOfOlderFiles(t *testing.T) {
	old := `{"seed":4,"workload":2,"heal":9884998130,"network":{"latency_min_ns":3877189,` +
		`"latency_max_ns":36470193,"detect_max_ns":301340075},"enabled":[{"kind":"conn_loss","gap":200000000}],` +
		`"faults":[{"at":185742775,"kind":"slow","pick":9,"for":1000000000,"extra":5000000}]}`
	s, err := ParseSchedule([]byte(old))
	if err != nil || s.Heal != 9884998130 || s.Network.DetectMax != 301340075 || s.Enabled[0].Gap != 200*time.Millisecond ||
		s.Faults[0].For != time.Second || s.Faults[0].Extra != 5*time.Millisecond {
		t.Fatalf("legacy schedule: %+v %v", s, err)
	}
}

func TestScheduleJSONRejections(t *testing.T) {
	for _, bad := range []string{
		`{"seed":1,"workload":1,"heal":"5 parsecs","network":{},"enabled":[],"faults":[]}`,
		`{"seed":1,"workload":1,"heal":true,"network":{},"enabled":[],"faults":[]}`,
		`{"seed":1,"workload":1,"heal":"1s","network":{"latency":"1ms"},"enabled":[],"faults":[]}`,
		`{"seed":1,"workload":1,"heal":"1s","network":{},"enabled":[],"faults":[{"at":"1ms","kind":"slow","when":1}]}`,
		`{"seed":1,"workload":1,"heal":"1s","network":{},"enabled":[{"kind":"slow","gap":"1s","x":1}],"faults":[]}`,
		`{"seed":1,"workload":1,"heal":"1s","network":{},"enabled":[],"faults":[],"extra":1}`,
	} {
		if _, err := ParseSchedule([]byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "sim: bad schedule: ") {
			t.Errorf("%s: accepted or unnamed: %v", bad, err)
		}
	}
}
