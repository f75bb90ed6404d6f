package campaign

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/turnstile-sim/turnstile/sim"
)

// Case is one entry of the regression corpus (sim/testdata/regressions) and
// the format of a failure bundle's shrunk.json. It holds everything needed
// to replay a run exactly: the world configuration and the schedule.
type Case struct {
	Seed   uint64 `json:"seed"`
	Config Config `json:"config"`
	// Commit is the commit the run was recorded on.
	Commit string `json:"commit,omitempty"`
	// Check is the check that failed when the case was found ("" for a pin
	// of a passing run).
	Check string `json:"check,omitempty"`
	Note  string `json:"note,omitempty"`
	// Fingerprint, when set, is the fingerprint the replay must produce;
	// it changes whenever behaviour changes.
	Fingerprint string       `json:"fingerprint,omitempty"`
	Schedule    sim.Schedule `json:"schedule"`
	// Bare is set by ParseCase for a bare schedule, which carries no
	// configuration of its own.
	Bare bool `json:"-"`
}

// Marshal renders the case as indented JSON with a trailing newline.
func (c Case) Marshal() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(c)
	assert(err == nil, "case marshal")
	return b.Bytes()
}

// ParseCase reads a case, or a bare schedule as written by
// sim.Schedule.MarshalIndent (then Config is the zero value: the caller
// supplies it).
func ParseCase(b []byte) (Case, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil {
		return Case{}, fmt.Errorf("campaign: bad case: %w", err)
	}
	if _, ok := probe["schedule"]; !ok {
		s, err := sim.ParseSchedule(b)
		if err != nil {
			return Case{}, err
		}
		return Case{Seed: s.Seed, Schedule: s, Bare: true}, nil
	}
	var c Case
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Case{}, fmt.Errorf("campaign: bad case: %w", err)
	}
	if c.Schedule.Seed != c.Seed {
		return Case{}, fmt.Errorf("campaign: bad case: seed %d but schedule seed %d", c.Seed, c.Schedule.Seed)
	}
	return c, nil
}
