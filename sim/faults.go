package sim

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

// FaultKind names a kind of fault. The set is open: the kernel knows the
// network kinds below, and callers register their own (for example
// "core_crash" or "harness_prepare_failure") with Kernel.RegisterFault.
type FaultKind string

// Network fault kinds handled by the kernel.
const (
	// FaultConnLoss breaks one open connection: frames in flight are lost and
	// each end learns at its own time.
	FaultConnLoss FaultKind = "conn_loss"
	// FaultStall holds the frames of one or both directions of a connection
	// for Fault.For, then releases them in order. Overlapping stalls of a
	// direction hold it until the last of them ends.
	FaultStall FaultKind = "stall"
	// FaultSlow adds Fault.Extra latency to one direction for Fault.For.
	// Overlapping slowdowns of a direction add the largest active Extra.
	FaultSlow FaultKind = "slow"
	// FaultDialRefuse refuses every dial to Fault.Node for Fault.For.
	FaultDialRefuse FaultKind = "dial_refuse"
)

// Fault is one scheduled fault. At is the offset from Epoch. Pick selects
// the victim among the candidates at that instant (open connections in ID
// order for network kinds) and may carry kind-specific bits; Node is the
// target node where the kind has one.
type Fault struct {
	At    time.Duration `json:"at"`
	Kind  FaultKind     `json:"kind"`
	Node  NodeID        `json:"node,omitempty"`
	Pick  uint64        `json:"pick,omitempty"`
	For   time.Duration `json:"for,omitempty"`
	Extra time.Duration `json:"extra,omitempty"`
}

func (f Fault) String() string { return string(f.appendTo(nil)) }

// appendTo appends the fault as String renders it.
func (f Fault) appendTo(b []byte) []byte {
	b = append(b, f.Kind...)
	b = append(b, " at="...)
	b = appendTime(b, int64(f.At))
	if f.Node != "" {
		b = append(b, " node="...)
		b = append(b, f.Node...)
	}
	if f.Pick != 0 {
		b = append(b, " pick="...)
		b = strconv.AppendUint(b, f.Pick, 10)
	}
	if f.For != 0 {
		b = append(b, " for="...)
		b = append(b, f.For.String()...)
	}
	if f.Extra != 0 {
		b = append(b, " extra="...)
		b = append(b, f.Extra.String()...)
	}
	return b
}

// FaultSpec describes how the swarm schedules one kind: faults arrive with
// a random gap around the swarm-chosen mean, each lasting within [ForMin,
// ForMax]; Targets (if any) are the nodes a fault may hit.
type FaultSpec struct {
	Kind    FaultKind
	Targets []NodeID
	ForMin  time.Duration
	ForMax  time.Duration
}

// FaultHandler applies a caller-registered fault when its instant comes.
type FaultHandler func(w *Kernel, f Fault)

type faultEntry struct {
	spec    FaultSpec
	handler FaultHandler // nil for kernel kinds
}

// KindSetting records whether the swarm enabled a kind, and its mean gap.
type KindSetting struct {
	Kind FaultKind     `json:"kind"`
	Gap  time.Duration `json:"gap"`
}

// Schedule is everything a run derives from its seed besides the nodes' own
// draws: the swarm selection, network parameters, workload size, heal time
// and the fault timeline. It serializes to JSON so it can be stored, shrunk
// and replayed with Replay. Its JSON (schedule_json.go) writes durations as
// Go duration strings and reads integer nanoseconds too.
type Schedule struct {
	Seed     uint64        `json:"seed"`
	Workload int           `json:"workload"`
	Heal     time.Duration `json:"heal"`
	Network  NetworkConfig `json:"network"`
	Enabled  []KindSetting `json:"enabled"`
	Faults   []Fault       `json:"faults"`
	// Draws are the bytes that replaced the first draws of named streams
	// (a fuzzer's input); nil for a run drawn from its seed alone.
	Draws Draws `json:"draws,omitempty"`
}

// String renders the swarm selection on one line, for the start of a run.
func (s Schedule) String() string {
	var kinds []string
	for _, k := range s.Enabled {
		kinds = append(kinds, fmt.Sprintf("%s(gap=%s)", k.Kind, k.Gap))
	}
	return fmt.Sprintf("seed=%d workload=%d heal=%s latency=[%s,%s] detect<=%s faults=%d enabled=[%s]",
		s.Seed, s.Workload, s.Heal, time.Duration(s.Network.LatencyMin),
		time.Duration(s.Network.LatencyMax), time.Duration(s.Network.DetectMax),
		len(s.Faults), strings.Join(kinds, " "))
}

// MarshalIndent renders the schedule as indented JSON.
func (s Schedule) MarshalIndent() []byte {
	b, err := json.MarshalIndent(s, "", "  ")
	assert.That(err == nil, "schedule marshal: %v", err)
	return b
}

// ParseSchedule reads a schedule stored as JSON and validates it (see
// Schedule.Validate).
func ParseSchedule(b []byte) (Schedule, error) {
	var s Schedule
	if err := json.Unmarshal(b, &s); err != nil {
		return Schedule{}, fmt.Errorf("sim: bad schedule: %w", err)
	}
	if err := s.Validate(); err != nil {
		return Schedule{}, err
	}
	return s, nil
}

// clone returns a deep copy.
func (s Schedule) clone() Schedule {
	s.Enabled = slices.Clone(s.Enabled)
	s.Faults = slices.Clone(s.Faults)
	s.Draws = s.Draws.clone()
	return s
}

// SwarmConfig bounds what the swarm may draw. Zero fields take defaults.
type SwarmConfig struct {
	HealMin time.Duration // default 5s
	HealMax time.Duration // default 30s
	// Kinds restricts the eligible kinds (nil: every known kind).
	Kinds []FaultKind
	// Enable is the chance that an eligible kind is enabled (default 1/2).
	Enable Ratio
	// All forces every eligible kind on (useful to prove injection).
	All bool
}

var gapChoices = []time.Duration{200 * time.Millisecond, time.Second, 5 * time.Second}

// RegisterFault adds a caller fault kind. The swarm schedules it like the
// network kinds; at each fault's instant the kernel calls h.
func (w *Kernel) RegisterFault(spec FaultSpec, h FaultHandler) {
	assert.That(!w.started, "RegisterFault after the run started")
	assert.That(h != nil, "RegisterFault without a handler")
	assert.That(spec.ForMin <= spec.ForMax, "fault spec with ForMin > ForMax")
	for _, e := range w.specs {
		if e.spec.Kind == spec.Kind {
			assert.Failf("fault kind %q registered twice", spec.Kind)
		}
	}
	w.specs = append(w.specs, faultEntry{spec: spec, handler: h})
}

// kernelSpecs returns the built-in network kinds for the world's nodes.
func (w *Kernel) kernelSpecs() []faultEntry {
	short, long := 100*time.Millisecond, 5*time.Second
	return []faultEntry{
		{spec: FaultSpec{Kind: FaultConnLoss}},
		{spec: FaultSpec{Kind: FaultStall, ForMin: short, ForMax: long}},
		{spec: FaultSpec{Kind: FaultSlow, ForMin: short, ForMax: long}},
		{spec: FaultSpec{Kind: FaultDialRefuse, Targets: w.Nodes(), ForMin: short, ForMax: long}},
	}
}

// allSpecs returns kernel and caller kinds sorted by kind name, so the swarm
// draws do not depend on registration order.
func (w *Kernel) allSpecs() []faultEntry {
	all := append(w.kernelSpecs(), w.specs...)
	slices.SortStableFunc(all, func(a, b faultEntry) int { return strings.Compare(string(a.spec.Kind), string(b.spec.Kind)) })
	return all
}

// generate draws the schedule of a run from the seed alone. The heal time
// and the network parameters come from the "swarm" stream; each kind draws
// its enable decision and gap from "swarm:<kind>" and its timeline from
// "faults:<kind>", so registering, enabling or restricting one kind never
// shifts the draws of another (a kind's timeline depends only on the seed,
// its own spec and the heal time).
func (w *Kernel) generate(cfg SwarmConfig) Schedule {
	r := w.Rand("swarm")
	s := Schedule{Seed: w.seed, Workload: w.workload}
	s.Heal = time.Duration(durationIn(r, int64(cfg.HealMin), int64(cfg.HealMax)))
	lo := durationIn(r, int64(time.Millisecond), int64(5*time.Millisecond))
	s.Network = NetworkConfig{LatencyMin: lo, LatencyMax: lo + durationIn(r, 0, int64(50*time.Millisecond)),
		DetectMax: durationIn(r, 0, int64(2*time.Second))}
	for _, e := range w.allSpecs() {
		kind := string(e.spec.Kind)
		if cfg.Kinds != nil && !slices.Contains(cfg.Kinds, e.spec.Kind) {
			continue
		}
		kr := NewStream(w.seed, "swarm:"+kind)
		on := cfg.Enable.Chance(kr) || cfg.All
		gap := gapChoices[kr.IntN(len(gapChoices))]
		if !on {
			continue
		}
		s.Enabled = append(s.Enabled, KindSetting{Kind: e.spec.Kind, Gap: gap})
		s.Faults = append(s.Faults, drawFaults(NewStream(w.seed, "faults:"+kind), e.spec, gap, s.Heal)...)
	}
	slices.SortStableFunc(s.Faults, func(a, b Fault) int { return cmp.Compare(a.At, b.At) })
	return s
}

func drawFaults(r *rand.Rand, spec FaultSpec, gap, heal time.Duration) []Fault {
	var out []Fault
	at := time.Duration(durationIn(r, int64(gap/2), int64(gap*3/2)))
	for at < heal {
		f := Fault{At: at, Kind: spec.Kind, Pick: r.Uint64()}
		if len(spec.Targets) > 0 {
			f.Node = spec.Targets[r.IntN(len(spec.Targets))]
		}
		if spec.ForMax > 0 {
			f.For = time.Duration(durationIn(r, int64(spec.ForMin), int64(spec.ForMax)))
		}
		if spec.Kind == FaultSlow {
			f.Extra = time.Duration(durationIn(r, int64(10*time.Millisecond), int64(500*time.Millisecond)))
		}
		out = append(out, f)
		at += time.Duration(durationIn(r, int64(gap/2), int64(gap*3/2)))
	}
	return out
}

// inject applies fault f now.
func (w *Kernel) inject(f Fault) {
	b := w.tr.begin(w.now, kernelName, "!!") // the line Note("fault " + f.String()) writes
	w.tr.end(f.appendTo(append(b, "fault "...)))
	if h := w.handlerFor(f.Kind); h != nil {
		w.stats.Faults[f.Kind]++
		h(w, f)
		return
	}
	n := &w.net
	if f.Kind == FaultDialRefuse {
		w.stats.Faults[f.Kind]++
		n.refuse[f.Node] = max(n.refuse[f.Node], w.now+int64(f.For))
		return
	}
	open := n.open()
	if len(open) == 0 {
		w.stats.FaultsSkipped++
		w.Note("fault skipped: no open connection")
		return
	}
	c := open[f.Pick%uint64(len(open))]
	w.stats.Faults[f.Kind]++
	bits := f.Pick >> 32
	switch f.Kind {
	case FaultConnLoss:
		n.breakConn(c, ReasonLost)
	case FaultStall:
		ends := []int{int(bits & 1)}
		if bits&2 != 0 {
			ends = []int{0, 1}
		}
		for _, e := range ends {
			n.stall(c, e, w.now+int64(f.For))
			w.After(f.For, "", func() {
				w.endFault("stall", n.direction(c, e), func() string { return stallEndNote(n.stallEnd(c, e)) })
			})
		}
	case FaultSlow:
		e := int(bits & 1)
		n.slow(c, e, w.now+int64(f.For), int64(f.Extra))
		w.After(f.For, "", func() {
			w.endFault("slow", n.direction(c, e), func() string { return slowEndNote(n.slowEnd(c, e)) })
		})
	default:
		panic(fmt.Sprintf("sim: fault kind %q has no handler", f.Kind))
	}
}

func stallEndNote(still bool) string {
	if still {
		return " (still stalled)"
	}
	return ""
}

func slowEndNote(extra int64) string {
	if extra == 0 {
		return ""
	}
	return " (still slow: extra=" + time.Duration(extra).String() + ")"
}

// endFault runs the end of a timed fault and traces it as "<what> end
// <direction>", unless the run never heals and the heal time has passed.
func (w *Kernel) endFault(what, dir string, fn func() string) {
	if w.opts.NeverHeal && w.healed {
		w.Note(what + " end " + dir + " skipped (never heal)")
		return
	}
	w.Note(what + " end " + dir + fn())
}

func (w *Kernel) handlerFor(k FaultKind) FaultHandler {
	for _, e := range w.specs {
		if e.spec.Kind == k {
			return e.handler
		}
	}
	return nil
}

// CrashRestart is a FaultHandler for crash kinds: it crashes f.Node and
// restarts it f.For later.
func CrashRestart(w *Kernel, f Fault) {
	id := f.Node
	w.Crash(id)
	w.After(f.For, "", func() { w.Restart(id) })
}
