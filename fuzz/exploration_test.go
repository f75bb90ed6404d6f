package fuzz

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/world"
)

// Exploration rate: how many distinct protocol states random seeds and
// FuzzWorld reach per minute. A run's state atoms are the rare-state marks
// it hit, Core's final turn states (with their error codes) and the timers
// whose firing decided something, and for a failing run "violation:CHECK"
// (it stopped early: its turn states are where it stopped, not where a
// passing run ends; a passing run never ends with a turn that is not
// terminal, the liveness checks fail it); the union of atoms over runs is the
// states reached, and a run's sorted atom set is its signature (distinct
// signatures are distinct combinations reached). Both sides append one
// line per run to a states file, with the run's FuzzWorld input in hex
// (for a random seed, the input that runs that seed), then -states.summary
// compares them and -states.with ATOM lists the inputs that reached ATOM:
//
//	go test ./fuzz -run TestExplorationRandomSeeds -states.duration 2m -states.out /tmp/random.states
//	TURNSTILE_FUZZ_STATES=/tmp/fuzz.states go test ./fuzz -run '^$' -fuzz FuzzWorld -fuzztime 2m -parallel 1
//	go test ./fuzz -run TestExplorationSummary -v -states.summary /tmp/random.states,/tmp/fuzz.states
//	go test ./fuzz -run TestExplorationSummary -v -states.summary /tmp/fuzz.states -states.with turn:queued
//
// A listed input replays with `go test ./fuzz -run TestExplorationInput
// -states.input HEX -v`, which prints the run's violations and turn states.
var (
	statesOut      = flag.String("states.out", "", "append one line per random seed run to this states file")
	statesDuration = flag.Duration("states.duration", 0, "run random seeds for this long (TestExplorationRandomSeeds)")
	statesSummary  = flag.String("states.summary", "", "comma list of states files to compare (TestExplorationSummary)")
	statesWith     = flag.String("states.with", "", "list the inputs of the -states.summary lines that reached this atom")
	statesInput    = flag.String("states.input", "", "hex FuzzWorld input to run (TestExplorationInput)")
)

// stateAtoms lists, sorted, the protocol states one run reached.
func stateAtoms(o world.Outcome) []string {
	var atoms []string
	for _, m := range o.Marks {
		if m.Count > 0 {
			atoms = append(atoms, "mark:"+string(m.Mark))
		}
	}
	for s, n := range o.TurnStates {
		if n > 0 {
			atoms = append(atoms, "turn:"+s)
		}
	}
	for timer, n := range o.TimersDecided {
		if n > 0 {
			atoms = append(atoms, "timer:"+timer)
		}
	}
	// A failing run stops at its first violation, usually with turns still
	// queued or running: its states are labelled so that they are not read
	// as states a passing run ended in.
	if o.Result.Failed() {
		atoms = append(atoms, "violation:"+o.Result.FailedCheck())
	}
	slices.Sort(atoms)
	return atoms
}

// statesLine is one run of a states file: wall clock (Unix ns), atoms
// and the run's FuzzWorld input in hex, tab separated.
func statesLine(at time.Time, atoms []string, input []byte) string {
	return strconv.FormatInt(at.UnixNano(), 10) + "\t" + strings.Join(atoms, " ") + "\t" + hex.EncodeToString(input) + "\n"
}

// appendStates appends a line to the file named by path ("" does nothing);
// FuzzWorld's workers are separate processes, so each line is one write.
func appendStates(path string, atoms []string, input []byte) {
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	_, _ = f.WriteString(statesLine(time.Now(), atoms, input))
	_ = f.Close()
}

// exploration is the running count of one states file.
type exploration struct {
	runs       int
	atoms      map[string]bool
	signatures map[string]bool
}

func newExploration() *exploration {
	return &exploration{atoms: map[string]bool{}, signatures: map[string]bool{}}
}

func (e *exploration) add(atoms []string) {
	e.runs++
	sum := sha256.Sum256([]byte(strings.Join(atoms, " ")))
	e.signatures[hex.EncodeToString(sum[:8])] = true
	for _, a := range atoms {
		e.atoms[a] = true
	}
}

// explorationCurve reads a states file and reports the counts after each
// minute from its first line (and at its end), and the inputs (hex) of the
// first 20 lines that reached the atom with ("": none).
func explorationCurve(path, with string) (curve, inputs []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	e := newExploration()
	var out []string
	var t0 int64
	next := time.Minute
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	report := func(label string) {
		out = append(out, fmt.Sprintf("%-6s runs=%-6d states=%-4d signatures=%d", label, e.runs, len(e.atoms), len(e.signatures)))
	}
	last := time.Duration(0)
	for sc.Scan() {
		ts, rest, ok := strings.Cut(sc.Text(), "\t")
		at, err := strconv.ParseInt(ts, 10, 64)
		if !ok || err != nil {
			return nil, nil, fmt.Errorf("%s: bad line %q", path, sc.Text())
		}
		if t0 == 0 {
			t0 = at
		}
		last = time.Duration(at - t0)
		for last >= next {
			report(next.String())
			next += time.Minute
		}
		atomText, input, _ := strings.Cut(rest, "\t")
		atoms := strings.Fields(atomText)
		if with != "" && len(inputs) < 20 && slices.Contains(atoms, with) {
			inputs = append(inputs, input)
		}
		e.add(atoms)
	}
	report("end " + last.Round(time.Second).String())
	return out, inputs, sc.Err()
}

// seedInput is the FuzzWorld input that runs seed as a random seed does:
// the full swarm, the default devices and turns, no draws.
func seedInput(seed uint64) []byte { return encodeWorldInput(seed, 1<<32-1, 0, 0, nil) }

// TestExplorationRandomSeeds runs random seeds for -states.duration and
// appends their state atoms to -states.out. Without the flag it checks
// the measurement itself: atoms are a deterministic function of the seed
// and every run reaches some state.
func TestExplorationRandomSeeds(t *testing.T) {
	if *statesDuration == 0 {
		for seed := uint64(1); seed <= 3; seed++ {
			a, b := stateAtoms(world.Run(seed, world.Config{})), stateAtoms(world.Run(seed, world.Config{}))
			if len(a) == 0 || !slices.Equal(a, b) {
				t.Fatalf("seed %d: atoms %v and %v", seed, a, b)
			}
			in := decodeWorldInput(seedInput(seed))
			if c := stateAtoms(world.Run(in.seed, in.cfg)); !slices.Equal(a, c) {
				t.Fatalf("seed %d: its recorded input reaches %v, the seed %v", seed, c, a)
			}
		}
		return
	}
	seed := rand.Uint64() >> 1
	t.Logf("random seeds from %d", seed)
	e := newExploration()
	for end := time.Now().Add(*statesDuration); time.Now().Before(end); seed++ {
		atoms := stateAtoms(world.Run(seed, world.Config{}))
		appendStates(*statesOut, atoms, seedInput(seed))
		e.add(atoms)
	}
	t.Logf("%d runs, %d states, %d signatures", e.runs, len(e.atoms), len(e.signatures))
}

// TestExplorationSummary prints the curve of each -states.summary file.
// Without the flag it checks the counting on a small file.
func TestExplorationSummary(t *testing.T) {
	if *statesSummary == "" {
		path := t.TempDir() + "/x.states"
		t0 := time.Unix(1000, 0)
		lines := statesLine(t0, []string{"mark:a", "turn:completed"}, []byte{1}) +
			statesLine(t0.Add(30*time.Second), []string{"mark:a", "turn:completed"}, []byte{2}) +
			statesLine(t0.Add(70*time.Second), []string{"mark:b"}, []byte{3})
		if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
			t.Fatal(err)
		}
		got, inputs, err := explorationCurve(path, "mark:b")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(inputs, []string{"03"}) {
			t.Fatalf("inputs with mark:b: %q", inputs)
		}
		want := []string{
			fmt.Sprintf("%-6s runs=%-6d states=%-4d signatures=%d", "1m0s", 2, 2, 1),
			fmt.Sprintf("%-6s runs=%-6d states=%-4d signatures=%d", "end 1m10s", 3, 3, 2),
		}
		if !slices.Equal(got, want) {
			t.Fatalf("curve %q, want %q", got, want)
		}
		return
	}
	for _, path := range strings.Split(*statesSummary, ",") {
		curve, inputs, err := explorationCurve(path, *statesWith)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s\n  %s", path, strings.Join(curve, "\n  "))
		if *statesWith != "" {
			t.Logf("inputs that reached %s:\n  %s", *statesWith, strings.Join(inputs, "\n  "))
		}
	}
}

// TestExplorationInput runs the hex FuzzWorld input of -states.input (a
// states file line's last field) and prints its violations and Core's
// final turn states. Without the flag it checks that a recorded input
// decodes back to the run it came from.
func TestExplorationInput(t *testing.T) {
	if *statesInput == "" {
		data := encodeWorldInput(3, 0x00ff00ff, 4, 25, []byte("draws"))
		line := statesLine(time.Unix(1, 0), []string{"mark:a"}, data)
		got, err := hex.DecodeString(strings.TrimSpace(line[strings.LastIndex(line, "\t")+1:]))
		if err != nil || !slices.Equal(got, data) {
			t.Fatalf("recorded input %x (%v), want %x", got, err, data)
		}
		return
	}
	data, err := hex.DecodeString(*statesInput)
	if err != nil {
		t.Fatalf("-states.input: %v", err)
	}
	in := decodeWorldInput(data)
	o := world.Run(in.seed, in.cfg)
	t.Logf("seed %d devices %d turns %d faults %v\nturn states %v", in.seed, in.cfg.Devices, in.cfg.Turns, in.cfg.Faults, o.TurnStates)
	for _, v := range o.Result.Violations {
		t.Logf("violation %s", v)
	}
}

// TestStateAtomsLabelFailingRuns checks that a failing run's states carry
// the check it failed, and a passing run's none.
func TestStateAtomsLabelFailingRuns(t *testing.T) {
	o := world.Outcome{TurnStates: map[string]int{"running": 1}}
	if got := stateAtoms(o); !slices.Equal(got, []string{"turn:running"}) {
		t.Fatalf("passing run: %v", got)
	}
	o.Result = sim.Result{Violations: []sim.Violation{{Check: "liveness", Message: "turn t1 is running"}}}
	if got := stateAtoms(o); !slices.Equal(got, []string{"turn:running", "violation:liveness"}) {
		t.Fatalf("failing run: %v", got)
	}
}
