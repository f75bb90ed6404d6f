package world

import "testing"

func TestDbg2(t *testing.T) {
	for s := uint64(700); s <= 741; s++ {
		o := Run(s, Config{})
		if s >= 739 {
			t.Log(s, o.Result.Fingerprint[:16], o.Result.Violations)
		}
	}
	o := Run(741, Config{})
	t.Log(o.Result.Fingerprint[:16], o.Result.Violations)
}
