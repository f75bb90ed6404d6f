package world

import (
	"errors"
	"slices"
	"testing"
)

func TestParseBugsSwitchesEachNamedBug(t *testing.T) {
	names := PlantedBugs()
	if !slices.IsSorted(names) || len(names) != 10 {
		t.Fatalf("planted bugs %v", names)
	}
	seen := map[Bugs]bool{}
	for _, n := range names {
		b, err := ParseBugs([]string{n})
		if err != nil || !b.Any() || seen[b] {
			t.Fatalf("%s: %+v %v (each name switches its own bug)", n, b, err)
		}
		seen[b] = true
	}
	all, err := ParseBugs(names)
	want := Bugs{true, true, true, true, true, true, true, true, true, true}
	if err != nil || all != want {
		t.Fatalf("all bugs: %+v %v", all, err)
	}
	if b, err := ParseBugs(nil); err != nil || b.Any() {
		t.Fatalf("no names, no bug: %+v %v", b, err)
	}
}

func TestParseBugsRefusesAnUnknownName(t *testing.T) {
	b, err := ParseBugs([]string{"daemon_accepts_before_apply", "meteor"})
	if !errors.Is(err, ErrUnknownBug) || b.Any() {
		t.Fatalf("%+v %v", b, err)
	}
}
