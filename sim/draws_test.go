package sim

import (
	"encoding/binary"
	"encoding/json"
	"testing"
	"time"
)

func TestDrawsReplaceTheFirstDrawsOfAStream(t *testing.T) {
	var got []uint64
	var other uint64
	b := make([]byte, 20) // two whole draws and four bytes
	binary.LittleEndian.PutUint64(b, 7)
	binary.LittleEndian.PutUint64(b[8:], 1<<40)
	copy(b[16:], []byte{1, 2, 3, 4})
	opts := Options{Schedule: nil, Draws: Draws{"x": b}, Setup: func(w *Kernel) {
		r := w.Rand("x")
		for range 4 {
			got = append(got, r.Uint64())
		}
		other = w.Rand("y").Uint64()
		w.AddNode("a", func() Node { return &recorder{id: "a", log: new([]string)} })
	}}
	res := Run(3, opts)
	want := []uint64{7, 1 << 40, 0x04030201, NewStream(3, "x").Uint64()}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("draw %d: %#x, want %#x (all: %#x)", i, got[i], want[i], got)
		}
	}
	if other != NewStream(3, "y").Uint64() {
		t.Fatal("a stream without draws keeps its seeded source")
	}
	if string(res.Schedule.Draws["x"]) != string(b) {
		t.Fatalf("the schedule must record the draws: %v", res.Schedule.Draws)
	}
	js, err := json.Marshal(res.Schedule)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseSchedule(js)
	if err != nil || string(back.Draws["x"]) != string(b) {
		t.Fatalf("draws survive JSON: %v %v", back.Draws, err)
	}
	got = nil
	again := Replay(back, Options{Setup: opts.Setup})
	if again.Fingerprint != res.Fingerprint || got[0] != 7 {
		t.Fatalf("replay of a schedule with draws: %s vs %s, first draw %d", again.Fingerprint, res.Fingerprint, got[0])
	}
}

func TestScheduleWithoutDrawsHasNoDrawsMember(t *testing.T) {
	res := Run(1, Options{Setup: func(w *Kernel) {}, Swarm: SwarmConfig{HealMin: time.Second, HealMax: time.Second}})
	js, _ := json.Marshal(res.Schedule)
	if res.Schedule.Draws != nil || containsDraws(js) {
		t.Fatalf("a seed-only run records no draws: %s", js)
	}
}

func containsDraws(js []byte) bool {
	var m map[string]any
	_ = json.Unmarshal(js, &m)
	_, ok := m["draws"]
	return ok
}
