package world

import (
	"testing"
)

func TestSmokeSeed(t *testing.T) {
	o := Run(1, Config{})
	t.Logf("fp=%s steps=%d end=%s violations=%v converged=%v pending=%q", o.Result.Fingerprint[:12], o.Result.Stats.Steps, o.Result.Stats.End, o.Result.Violations, o.Result.Converged, o.Result.Pending)
	t.Logf("lin=%s turns=%d inputs=%d records=%v marks=%v", o.Lin, o.Turns, o.Inputs, o.Records, o.Result.Marks)
	for _, l := range o.Result.Tail[len(o.Result.Tail)-20:] {
		t.Log(l)
	}
}
