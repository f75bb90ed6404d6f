package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// drawSchedule builds a world with setup and draws its schedule.
func drawSchedule(seed uint64, cfg SwarmConfig, setup func(w *Kernel)) Schedule {
	opts := Options{Setup: setup, Swarm: cfg}.withDefaults()
	w := newKernel(seed, opts)
	setup(w)
	return w.generate(opts.Swarm)
}

func nopFault(*Kernel, Fault) {}

// without drops kind k from a schedule's settings and timeline.
func without(s Schedule, k FaultKind) ([]KindSetting, []Fault) {
	var en []KindSetting
	for _, e := range s.Enabled {
		if e.Kind != k {
			en = append(en, e)
		}
	}
	var fs []Fault
	for _, f := range s.Faults {
		if f.Kind != k {
			fs = append(fs, f)
		}
	}
	return en, fs
}

func TestRegisteringAFaultKindDoesNotShiftOthers(t *testing.T) {
	base := func(w *Kernel) {
		w.AddNode("a", func() Node { return NodeFunc(func(time.Time, Event) []Effect { return nil }) })
		w.AddNode("b", func() Node { return NodeFunc(func(time.Time, Event) []Effect { return nil }) })
		w.RegisterFault(FaultSpec{Kind: "m_crash", Targets: []NodeID{"a"}, ForMax: time.Second}, nopFault)
	}
	for _, extra := range []FaultKind{"a_extra", "n_extra", "zz_extra"} {
		withExtra := func(w *Kernel) {
			base(w)
			w.RegisterFault(FaultSpec{Kind: extra, Targets: []NodeID{"b"}, ForMin: time.Millisecond,
				ForMax: 2 * time.Second}, nopFault)
		}
		for _, all := range []bool{false, true} {
			cfg := SwarmConfig{All: all}
			drawn := 0
			for seed := uint64(1); seed <= 300; seed++ {
				plain := drawSchedule(seed, cfg, base)
				more := drawSchedule(seed, cfg, withExtra)
				en, fs := without(more, extra)
				if !slices.Equal(en, plain.Enabled) || !slices.Equal(fs, plain.Faults) ||
					more.Heal != plain.Heal || more.Network != plain.Network {
					t.Fatalf("kind %s (all=%v) shifted seed %d:\n%s\n%s", extra, all, seed, plain, more)
				}
				drawn += len(more.Faults) - len(fs)
			}
			if drawn == 0 {
				t.Fatalf("kind %s (all=%v) was never drawn", extra, all)
			}
		}
	}
}

func TestRestrictingKindsDoesNotShiftOthers(t *testing.T) {
	setup := func(w *Kernel) {
		w.AddNode("a", func() Node { return NodeFunc(func(time.Time, Event) []Effect { return nil }) })
		w.RegisterFault(FaultSpec{Kind: "crash", Targets: []NodeID{"a"}}, nopFault)
	}
	for seed := uint64(1); seed <= 200; seed++ {
		all := drawSchedule(seed, SwarmConfig{}, setup)
		only := drawSchedule(seed, SwarmConfig{Kinds: []FaultKind{FaultStall, "crash"}}, setup)
		var en []KindSetting
		for _, e := range all.Enabled {
			if e.Kind == FaultStall || e.Kind == "crash" {
				en = append(en, e)
			}
		}
		var fs []Fault
		for _, f := range all.Faults {
			if f.Kind == FaultStall || f.Kind == "crash" {
				fs = append(fs, f)
			}
		}
		if !slices.Equal(en, only.Enabled) || !slices.Equal(fs, only.Faults) {
			t.Fatalf("seed %d: restricting kinds shifted the rest:\n%s\n%s", seed, all, only)
		}
	}
}

// faultRun dials a->b, applies faults and has a send one frame at each of
// sendAt; it returns the times b received them and the trace.
func faultRun(t *testing.T, faults []Fault, sendAt ...time.Duration) ([]string, []string) {
	t.Helper()
	var got []string
	s := fixedNet(1)
	s.Heal = 20 * time.Second
	s.Faults = faults
	opts := Options{Schedule: s, KeepTrace: true, Setup: func(w *Kernel) {
		var conn ConnID
		w.AddNode("a", func() Node {
			return NodeFunc(func(now time.Time, ev Event) []Effect {
				switch e := ev.(type) {
				case Start:
					out := []Effect{Dial{Peer: "b"}}
					for i, at := range sendAt {
						out = append(out, SetTimer{TimerID(fmt.Sprint(i)), Epoch.Add(at)})
					}
					return out
				case ConnOpened:
					conn = e.Conn
				case TimerFired:
					return []Effect{Send{Conn: conn, Frame: []byte(e.Timer)}}
				}
				return nil
			})
		})
		w.AddNode("b", deliveriesTo(&got))
	}}
	r := Run(1, opts)
	if r.Failed() {
		t.Fatal(r.Report())
	}
	return got, r.Trace
}

func TestOverlappingStallsHoldUntilTheLastEnds(t *testing.T) {
	ms := time.Millisecond
	got, trace := faultRun(t, []Fault{
		{At: 30 * ms, Kind: FaultStall, For: 10 * time.Second}, // pick 0: c1, direction a->b
		{At: 40 * ms, Kind: FaultStall, For: 100 * ms},
	}, 50*ms, 200*ms)
	want := []string{"0@10.040000000", "1@10.040000000"}
	if !slices.Equal(got, want) {
		t.Fatalf("frames arrived %v, want %v", got, want)
	}
	all := strings.Join(trace, "\n")
	for _, line := range []string{"0.140000000 kernel !! stall end c1 a->b (still stalled)\n",
		"10.030000000 kernel !! stall end c1 a->b\n"} {
		if !strings.Contains(all+"\n", line) {
			t.Fatalf("trace lacks %q:\n%s", line, all)
		}
	}
}

func TestOverlappingSlowdownsKeepTheLargestActiveExtra(t *testing.T) {
	ms := time.Millisecond
	got, trace := faultRun(t, []Fault{
		{At: 30 * ms, Kind: FaultSlow, For: 10 * time.Second, Extra: 50 * ms},
		{At: 40 * ms, Kind: FaultSlow, For: time.Second, Extra: 300 * ms},
	}, 500*ms, 2*time.Second, 11*time.Second)
	want := []string{"0@0.810000000", "1@2.060000000", "2@11.010000000"}
	if !slices.Equal(got, want) {
		t.Fatalf("frames arrived %v, want %v", got, want)
	}
	all := strings.Join(trace, "\n")
	for _, line := range []string{"1.040000000 kernel !! slow end c1 a->b (still slow: extra=50ms)",
		"10.030000000 kernel !! slow end c1 a->b"} {
		if !strings.Contains(all, line) {
			t.Fatalf("trace lacks %q:\n%s", line, all)
		}
	}
}

// A fault's text is part of the trace, so it keeps its exact form.
func TestFaultStringText(t *testing.T) {
	for _, c := range []struct {
		f    Fault
		want string
	}{
		{Fault{Kind: FaultConnLoss, At: 1500 * time.Millisecond}, "conn_loss at=1.500000000"},
		{Fault{Kind: "core_crash", At: 2 * time.Second, Node: "core", Pick: 18446744073709551615, For: time.Second, Extra: 3 * time.Millisecond},
			"core_crash at=2.000000000 node=core pick=18446744073709551615 for=1s extra=3ms"},
	} {
		if got := c.f.String(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// deliveriesTo is a node that notes each frame delivered to it, with the
// instant, in *got.
func deliveriesTo(got *[]string) func() Node {
	return func() Node {
		return NodeFunc(func(now time.Time, ev Event) []Effect {
			if d, ok := ev.(Delivered); ok {
				*got = append(*got, string(d.Frame)+"@"+FormatTime(now))
			}
			return nil
		})
	}
}
