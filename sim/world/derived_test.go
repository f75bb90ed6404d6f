package world

import (
	"encoding/json"
	"strings"
	"testing"
)

// The derived section describes what the seed drew (devices and their
// limits, Harness, workload) and is deterministic JSON.
func TestDerivedDescribesTheSeed(t *testing.T) {
	a, b := Run(9, Config{Devices: 3}), Run(9, Config{Devices: 3})
	d := a.Derived
	if len(d.Devices) != 3 || d.Workload.Turns != workloadDefault || len(d.Workload.Arrivals) != workloadDefault ||
		len(d.Workload.Sessions) == 0 || d.Harness.LongTurnsMax == 0 {
		t.Fatalf("derived %+v", d)
	}
	turns := 0
	for _, s := range d.Workload.Sessions {
		turns += s.Turns
	}
	if turns != workloadDefault {
		t.Fatalf("sessions hold %d turns, want %d", turns, workloadDefault)
	}
	for _, dev := range d.Devices {
		if len(dev.Kinds) == 0 || dev.Kinds[0].Kind != agentKind || dev.Limits.ActiveMax == 0 ||
			dev.Limits.AdmissionExpiry == "" || dev.Kinds[0].Unsupported == nil {
			t.Fatalf("device %+v", dev)
		}
	}
	ja, err := json.Marshal(a.Derived)
	jb, _ := json.Marshal(b.Derived)
	if err != nil || string(ja) != string(jb) {
		t.Fatalf("derived not deterministic JSON (%v):\n%s\n%s", err, ja, jb)
	}
	for _, key := range []string{`"devices":`, `"limits":`, `"unsupported":`, `"harness":`, `"workload":`, `"arrivals":`} {
		if !strings.Contains(string(ja), key) {
			t.Errorf("derived JSON lacks %s: %s", key, ja)
		}
	}
}
