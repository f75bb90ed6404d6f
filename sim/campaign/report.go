package campaign

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/turnstile-sim/turnstile/sim"
)

// SeedReport is the JSON line of one seed.
type SeedReport struct {
	Seed        uint64         `json:"seed"`
	Fingerprint string         `json:"fingerprint"`
	Faults      FaultReport    `json:"faults"`
	Marks       map[string]int `json:"marks"`
	// Timers counts, by timer name, the outcomes each timer decided in
	// the run (an input unknown exactly at its written deadline, ...).
	Timers     map[string]int `json:"timers_decided,omitempty"`
	Violations []Violation    `json:"violations"`
	Pending    string         `json:"pending,omitempty"` // liveness: what never settled
	Events     uint64         `json:"events"`
	VirtualMS  int64          `json:"virtual_ms"` // virtual time simulated
	WallMS     float64        `json:"wall_ms"`
	Turns      int            `json:"turns"`
	Inputs     int            `json:"inputs"`
	Lin        LinReport      `json:"lin"`
	Audit      *AuditReport   `json:"audit,omitempty"` // only for audited seeds
	// Shrink says why a failing seed's bundle has no shrunk schedule
	// ("shrink skipped: <reason>"); empty otherwise.
	Shrink string `json:"shrink,omitempty"`
}

// FaultReport says which fault kinds the swarm enabled for a seed and how
// many faults of each kind were applied.
type FaultReport struct {
	Enabled []string       `json:"enabled"`
	Applied map[string]int `json:"applied"`
	Skipped uint64         `json:"skipped"` // scheduled faults with no victim
}

// Violation is one failed check of a seed.
type Violation struct {
	Check   string `json:"check"`
	Step    uint64 `json:"step"`
	Time    string `json:"time"` // virtual time since the epoch
	Message string `json:"message"`
}

// Linearizability results as reported; LinNone means the world did not
// check the seed's history.
const (
	LinOk      = "ok"
	LinIllegal = "illegal"
	LinUnknown = "unknown"
	LinNone    = "none"
)

// LinReport is the linearizability verdict of a seed.
type LinReport struct {
	Result     string   `json:"result"`
	Partitions int      `json:"partitions"`
	Operations int      `json:"operations"`
	Illegal    []string `json:"illegal,omitempty"`
}

// AuditReport is the determinism audit of one seed.
type AuditReport struct {
	Fingerprint string `json:"fingerprint"` // of the traced rerun
	Diverged    bool   `json:"diverged"`
	Line        int    `json:"line,omitempty"` // first divergent trace line, from 1; 0 if not known
	LineA       string `json:"line_a,omitempty"`
	LineB       string `json:"line_b,omitempty"`
	Detail      string `json:"detail,omitempty"`
}

// String renders the audit verdict on one or three lines.
func (a AuditReport) String() string {
	if !a.Diverged {
		return "deterministic: rerun fingerprint " + a.Fingerprint
	}
	if a.Line == 0 {
		return "NONDETERMINISTIC: " + a.Detail
	}
	return fmt.Sprintf("NONDETERMINISTIC: %s; first divergent trace line is line %d:\n  run A: %s\n  run B: %s",
		a.Detail, a.Line, a.LineA, a.LineB)
}

// NewSeedReport describes an outcome; the wall time and audit are filled in
// by RunSeed.
func NewSeedReport(o Outcome) SeedReport {
	r := o.Result
	rep := SeedReport{
		Seed:        r.Seed,
		Fingerprint: r.Fingerprint,
		Faults:      FaultReport{Enabled: []string{}, Applied: map[string]int{}, Skipped: r.Stats.FaultsSkipped},
		Marks:       map[string]int{},
		Violations:  []Violation{},
		Events:      r.Stats.Events,
		VirtualMS:   r.Stats.End.Milliseconds(),
		Turns:       o.Turns,
		Inputs:      o.Inputs,
		Lin:         linReport(o),
	}
	if !r.Converged {
		rep.Pending = r.Pending
	}
	for _, k := range r.Schedule.Enabled {
		rep.Faults.Enabled = append(rep.Faults.Enabled, string(k.Kind))
	}
	for _, k := range sortedKeys(r.Stats.Faults) {
		n := r.Stats.Faults[k] - o.Skipped[k]
		rep.Faults.Skipped += uint64(o.Skipped[k])
		if n > 0 {
			rep.Faults.Applied[string(k)] = n
		}
	}
	for _, k := range sortedKeys(r.Marks) {
		rep.Marks[k] = r.Marks[k]
	}
	rep.Timers = timersDecided(o.TimersDecided)
	for _, v := range r.Violations {
		rep.Violations = append(rep.Violations, Violation{Check: v.Check, Step: v.Step,
			Time: sim.FormatTime(sim.Epoch.Add(v.At)), Message: v.Message})
	}
	return rep
}

func linReport(o Outcome) LinReport {
	res := strings.ToLower(string(o.Lin.Result))
	if res == "" {
		res = LinNone
	}
	return LinReport{Result: res, Partitions: o.Lin.Partitions, Operations: o.Lin.Operations,
		Illegal: slices.Clone(o.Lin.Illegal)}
}

// CheckPanic names the failure of a seed whose run panicked (a crash in a
// machine or the world is a finding, reported like a violated check).
const CheckPanic = "panic"

// PanicReport is the report of a seed whose run panicked with msg.
func PanicReport(seed uint64, msg string) SeedReport {
	return SeedReport{Seed: seed, Faults: FaultReport{Enabled: []string{}, Applied: map[string]int{}},
		Marks: map[string]int{}, Lin: LinReport{Result: LinNone},
		Violations: []Violation{{Check: CheckPanic, Message: msg}}}
}

// Failed reports a violation, an Illegal history or a failed audit.
func (r SeedReport) Failed() bool {
	return len(r.Violations) > 0 || r.Lin.Result == LinIllegal || (r.Audit != nil && r.Audit.Diverged)
}

// FirstCheck names what failed first: the first violated check, else
// "linearizability" or "determinism".
func (r SeedReport) FirstCheck() string {
	switch {
	case len(r.Violations) > 0:
		return r.Violations[0].Check
	case r.Lin.Result == LinIllegal:
		return "linearizability"
	case r.Audit != nil && r.Audit.Diverged:
		return "determinism"
	}
	return ""
}

// Header is the first JSON line of a campaign's output. It lets a merge tell
// missing shards and seeds from ones never planned.
type Header struct {
	First  uint64 `json:"first"`
	Seeds  int    `json:"seeds"` // in the whole campaign
	Shard  string `json:"shard"`
	Config Config `json:"config"`
	Commit string `json:"commit,omitempty"`
	// Budget is the wall-time budget of a time-budgeted campaign (a Go
	// duration): each shard ran the seeds of its plan in order until the
	// budget was spent, so Seeds is an upper bound, not a promise.
	Budget string `json:"budget,omitempty"`
	// Fresh: First was drawn at random when the campaign started.
	Fresh bool `json:"fresh,omitempty"`
}

// NewHeader describes a plan.
func NewHeader(p Plan, c Config, commit string) Header {
	return Header{First: p.First, Seeds: p.Count, Shard: p.Shard.String(), Config: c, Commit: commit}
}

// MarshalLine renders a header or a seed report as one JSON line without a
// trailing newline.
func MarshalLine(v any) []byte {
	var b []byte
	var err error
	switch x := v.(type) {
	case Header:
		b, err = json.Marshal(struct {
			Header Header `json:"header"`
		}{x})
	case SeedReport:
		b, err = json.Marshal(x)
	default:
		panic(fmt.Sprintf("campaign: cannot marshal %T as a line", v))
	}
	assert.That(err == nil, "line marshal")
	return b
}

// ParseLine reads one JSON line: exactly one of the results is non-nil.
func ParseLine(b []byte) (*Header, *SeedReport, error) {
	var probe struct {
		Header *Header `json:"header"`
		Seed   *uint64 `json:"seed"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, nil, err
	}
	switch {
	case probe.Header != nil:
		return probe.Header, nil, nil
	case probe.Seed == nil:
		return nil, nil, fmt.Errorf("line has neither header nor seed")
	}
	var rep SeedReport
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, nil, err
	}
	return nil, &rep, nil
}

func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
