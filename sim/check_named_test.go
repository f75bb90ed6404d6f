package sim

import (
	"errors"
	"testing"
)

// A check that returns a *NamedViolation reports it under the name it
// carries, after a step and at the end; any other error keeps the check's
// own name.
func TestNamedViolation(t *testing.T) {
	for _, c := range []struct {
		name      string
		afterStep bool
		err       error
		check     string
		message   string
	}{
		{"named after step", true, &NamedViolation{Check: "rule_a", Message: "broken"}, "rule_a", "broken"},
		{"named at end", false, &NamedViolation{Check: "rule_b", Message: "late"}, "rule_b", "late"},
		{"plain after step", true, errors.New("plain"), "judge", "plain"},
		{"plain at end", false, errors.New("plain"), "judge", "plain"},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := toyOptions(toyConfig{})
			setup := opts.Setup
			opts.Setup = func(w *Kernel) {
				setup(w)
				chk := Check{Name: "judge"}
				if c.afterStep {
					chk.AfterStep = func(v *View) error {
						if v.Step() == 3 {
							return c.err
						}
						return nil
					}
				} else {
					chk.AtEnd = func(*View) error { return c.err }
				}
				w.AddCheck(chk)
			}
			r := Run(1, opts)
			if len(r.Violations) != 1 || r.Violations[0].Check != c.check || r.Violations[0].Message != c.message {
				t.Fatalf("violations %+v, want one of %s: %s", r.Violations, c.check, c.message)
			}
		})
	}
}
