package campaign

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/turnstile-sim/turnstile/sim"
)

// Config is what a campaign's user chooses; everything else is drawn from
// each seed. It mirrors the knobs of the world under test.
type Config struct {
	Devices int // 0: drawn from the seed
	Turns   int // 0: the world's default
	// Faults is nil for swarm selection over every kind, empty for no
	// faults, else the only kinds the swarm may enable.
	Faults []sim.FaultKind
}

// Fault specifications accepted by ParseFaults besides a list of kinds.
const (
	FaultsSwarm = "swarm"
	FaultsNone  = "none"
)

// ErrFaultsEmpty refuses an empty -faults value, which would otherwise
// silently mean the swarm.
var ErrFaultsEmpty = errors.New("-faults is empty")

// ParseFaults reads a -faults value: "swarm" (nil), "none" (empty, non-nil)
// or a comma-separated list of kinds, each of which must be in valid. An
// empty value or an empty kind in the list is an error.
func ParseFaults(spec string, valid []sim.FaultKind) ([]sim.FaultKind, error) {
	spec = strings.TrimSpace(spec)
	switch spec {
	case "":
		return nil, fmt.Errorf("%w; want %q, %q or a comma list of kinds", ErrFaultsEmpty, FaultsSwarm, FaultsNone)
	case FaultsSwarm:
		return nil, nil
	case FaultsNone:
		return []sim.FaultKind{}, nil
	}
	out := []sim.FaultKind{}
	for _, part := range strings.Split(spec, ",") {
		k := sim.FaultKind(strings.TrimSpace(part))
		if k == "" {
			return nil, fmt.Errorf("%w: empty kind in %q", ErrFaultKind, spec)
		}
		if !slices.Contains(valid, k) {
			return nil, fmt.Errorf("%w %q; valid kinds: %s (or %q, %q)",
				ErrFaultKind, k, strings.ReplaceAll(joinKinds(valid), ",", ", "), FaultsSwarm, FaultsNone)
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	// A set of kinds: the order given on the command line changes no draw
	// (each kind has its own streams), so it must not make two shards of
	// one campaign look different.
	slices.Sort(out)
	return out, nil
}

// FaultsString renders faults the way ParseFaults reads them.
func FaultsString(faults []sim.FaultKind) string {
	if faults == nil {
		return FaultsSwarm
	}
	if len(faults) == 0 {
		return FaultsNone
	}
	return joinKinds(faults)
}

func joinKinds(kinds []sim.FaultKind) string {
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = string(k)
	}
	return strings.Join(parts, ",")
}

// ErrPlantedBugs refuses a configuration recorded with planted bugs: the
// machines have none; their bugs are mutants of sim/testdata/mutants.
var ErrPlantedBugs = errors.New("configuration names planted bugs, which the machines no longer have (see the mutation suite)")

type configJSON struct {
	Devices int    `json:"devices"`
	Turns   int    `json:"turns"`
	Faults  string `json:"faults"`
	// Bugs is read only to refuse a case recorded with planted bugs.
	Bugs []string `json:"bugs,omitempty"`
}

// MarshalJSON writes the fault selection as its flag value.
func (c Config) MarshalJSON() ([]byte, error) {
	return json.Marshal(configJSON{Devices: c.Devices, Turns: c.Turns, Faults: FaultsString(c.Faults)})
}

// UnmarshalJSON reads what MarshalJSON writes. Fault kinds are not checked
// against a world here; the world ignores kinds it does not know.
func (c *Config) UnmarshalJSON(b []byte) error {
	var j configJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	if len(j.Bugs) > 0 {
		return fmt.Errorf("%w: %s", ErrPlantedBugs, strings.Join(j.Bugs, ", "))
	}
	c.Devices, c.Turns = j.Devices, j.Turns
	switch j.Faults {
	case "", FaultsSwarm:
		c.Faults = nil
	case FaultsNone:
		c.Faults = []sim.FaultKind{}
	default:
		c.Faults = []sim.FaultKind{}
		for _, k := range strings.Split(j.Faults, ",") {
			c.Faults = append(c.Faults, sim.FaultKind(strings.TrimSpace(k)))
		}
	}
	return nil
}

// Flags renders the non-default parts of c as command-line flags, each
// preceded by a space.
func (c Config) Flags() string {
	var b strings.Builder
	if c.Devices != 0 {
		b.WriteString(" -devices " + strconv.Itoa(c.Devices))
	}
	if c.Turns != 0 {
		b.WriteString(" -turns " + strconv.Itoa(c.Turns))
	}
	if c.Faults != nil {
		b.WriteString(" -faults " + FaultsString(c.Faults))
	}
	return b.String()
}

// Command is how replay lines invoke the CLI.
const Command = "go run ./cmd/turnstile"

// ReplayCommand is the one-line command that replays seed under c.
func ReplayCommand(seed uint64, c Config) string {
	return fmt.Sprintf("%s replay -seed %d%s", Command, seed, c.Flags())
}

// ReplayScheduleCommand replays a stored schedule or regression entry.
func ReplayScheduleCommand(path string) string {
	return fmt.Sprintf("%s replay -schedule %s", Command, path)
}
