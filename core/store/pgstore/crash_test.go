package pgstore_test

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store"
	"github.com/turnstile-sim/turnstile/core/store/pgstore"
	"github.com/turnstile-sim/turnstile/core/store/pgstore/pgtest"
	"github.com/turnstile-sim/turnstile/wire"
)

var (
	crashKills = flag.Int("pgstore.kills", 12, "SIGKILLs of the group-commit crash test")
	crashSeed  = flag.Uint64("pgstore.seed", 1, "seed of the crash test's kill points")
)

// crashChildEnv selects the crash test's child mode; its value is the
// connection string.
const crashChildEnv = "TURNSTILE_PGSTORE_CRASH_CHILD"

func TestMain(m *testing.M) {
	if dsn := os.Getenv(crashChildEnv); dsn != "" {
		os.Exit(crashChild(dsn))
	}
	os.Exit(m.Run())
}

// batchStore is what a batch writes to: a core.Store with idempotency
// answers.
type batchStore interface {
	core.Store
	PutIdempotent(key string, answer []byte)
}

// memoryBatch is the expected side: a store.Memory plus answers.
type memoryBatch struct {
	*store.Memory
	answers map[string][]byte
}

func (m memoryBatch) PutIdempotent(key string, answer []byte) {
	if _, ok := m.answers[key]; !ok {
		m.answers[key] = answer
	}
}

// batchEvents is the number of events batch k appends (1 to 120, so some
// commits are large).
func batchEvents(k uint64) int { return 1 + int(k*37%120) }

// writeBatch is the crash test's workload: batch k touches every record
// kind, replaces records of earlier batches, and leaves in the counters
// the number of the batch it completes. Every value depends on k alone,
// so a torn, missing or reordered batch shows.
func writeBatch(st batchStore, k uint64) {
	ev := st.Counters().Preparations // events in t-log so far
	for j := range batchEvents(k) {
		ev++
		st.AppendEvent("t-log", core.RunEvent{Seq: ev, Type: wire.TypeDelta,
			Payload: wire.Delta{Delta: fmt.Sprintf("b%d.%d", k, j), Sequence: k}})
	}
	st.PutTurn(core.TurnRecord{ID: "t-log", Seq: 0, State: core.TurnRunning, EventCount: ev, RunID: fmt.Sprint("batch ", k)})
	st.PutTurn(core.TurnRecord{ID: fmt.Sprintf("t-%d", k), Seq: k, Session: "s-1", State: core.TurnQueued,
		Input: wire.TextInput(strings.Repeat("x", int(k%50)))})
	if k > 1 {
		prev, _ := st.Turn(fmt.Sprintf("t-%d", k-1))
		prev.State = core.TurnCompleted
		st.PutTurn(prev)
		st.PutInput("t-in", core.InputRecord{Index: int(k - 1), ID: strconv.Itoa(int(k - 1)), State: core.InputAccepted})
	}
	st.PutInput("t-in", core.InputRecord{Index: int(k), ID: strconv.Itoa(int(k)), State: core.InputQueued})
	st.PutSession(core.SessionRecord{ID: "s-1", Seq: 1, StartedTurns: int(k)})
	st.PutIdempotent(fmt.Sprint("key-", k), []byte(fmt.Sprint("answer ", k)))
	st.SaveCounters(core.Counters{Sessions: k, Turns: k, Preparations: ev})
}

// crashChild writes and commits batches until it is killed, announcing
// each Commit before it starts ("begin k") and after it returned
// ("done k").
func crashChild(dsn string) int {
	st, err := pgstore.Open(dsn)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	for k := st.Counters().Sessions + 1; ; k++ {
		writeBatch(st, k)
		fmt.Printf("begin %d\n", k)
		if err := st.Commit(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
		fmt.Printf("done %d\n", k)
	}
}

// TestGroupCommitSurvivesSIGKILL re-executes the test binary as a child
// that writes batches and commits them in a loop, SIGKILLs it at seeded
// random points (right after it announced a Commit, or right after one
// returned), reopens the schema and checks that it holds exactly batches
// 1..m for some m: at least every batch whose Commit returned, at most
// every batch whose Commit began, each whole, in order.
func TestGroupCommitSurvivesSIGKILL(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := pgtest.Schema(t) // the connection string
	rng := rand.New(rand.NewPCG(*crashSeed, 0x5eed))
	var done, begun uint64 // over all children
	var midCommit, landedAfter int
	for kill := range *crashKills {
		target := done + 1 + rng.Uint64N(8)
		atBegin := rng.IntN(2) == 0
		phase := "done"
		if atBegin {
			phase = "begin"
		}
		b, d := runChildUntil(t, exe, dir, fmt.Sprintf("%s %d", phase, target))
		begun, done = max(begun, b), max(done, d)
		m := checkPrefix(t, dir, done, begun)
		if atBegin {
			midCommit++
			if m == target {
				landedAfter++
			}
		}
		t.Logf("kill %d at %q: batches begun %d, done %d, on disk %d", kill+1, fmt.Sprintf("%s %d", phase, target), begun, done, m)
		done = m // the next child starts after what is on disk
	}
	t.Logf("seed %d: %d kills, %d right after a Commit began (%d of those found the batch committed)",
		*crashSeed, *crashKills, midCommit, landedAfter)
}

// runChildUntil starts a child on dir (a connection string), SIGKILLs it as soon as it prints
// line, and returns the last batch it began and the last it finished.
func runChildUntil(t *testing.T, exe, dir, line string) (begun, done uint64) {
	t.Helper()
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A child that never prints line (or a test that fails first) is
	// killed, not left committing into a schema the test drops.
	var stuck atomic.Bool
	watchdog := time.AfterFunc(time.Minute, func() { stuck.Store(true); _ = cmd.Process.Kill() })
	defer watchdog.Stop()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	// After the kill the loop drains what the child printed before it
	// died: it may have begun (or finished) another Commit meanwhile.
	killed := false
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		word, num, _ := strings.Cut(sc.Text(), " ")
		k, err := strconv.ParseUint(num, 10, 64)
		if err != nil {
			t.Fatalf("child said %q", sc.Text())
		}
		if word == "begin" {
			begun = k
		} else {
			done = k
		}
		if sc.Text() == line && !killed {
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	err = cmd.Wait()
	if stuck.Load() {
		t.Fatalf("child did not print %q within a minute (last begun %d, done %d):\n%s", line, begun, done, stderr.String())
	}
	if !killed {
		t.Fatalf("child ended before %q: %v\n%s", line, err, stderr.String())
	}
	return begun, done
}

// checkPrefix opens dir (a connection string) and compares it with batches 1..m replayed into a
// store.Memory, where m is the batch the counters name; it returns m.
func checkPrefix(t *testing.T, dir string, done, begun uint64) uint64 {
	t.Helper()
	st := mustOpen(t, dir)
	defer st.Close()
	m := st.Counters().Sessions
	if m < done || m > begun {
		t.Fatalf("disk holds %d batches; %d Commits returned, %d began", m, done, begun)
	}
	want := memoryBatch{store.NewMemory(), map[string][]byte{}}
	for k := uint64(1); k <= m; k++ {
		writeBatch(want, k)
	}
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"counters", st.Counters(), want.Counters()},
		{"sessions", st.Sessions(), want.Sessions()},
		{"turns", st.Turns(), want.Turns()},
		{"inputs", st.Inputs("t-in"), want.Inputs("t-in")},
		{"events", st.Events("t-log"), want.Events("t-log")},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Fatalf("after %d batches, %s differ:\n got  %+v\n want %+v", m, c.what, c.got, c.want)
		}
	}
	for k := uint64(1); k <= m+1; k++ {
		a, ok := st.Idempotent(fmt.Sprint("key-", k))
		if wa, wok := want.answers[fmt.Sprint("key-", k)]; ok != wok || string(a) != string(wa) {
			t.Fatalf("after %d batches, answer %d is %q %v, want %q %v", m, k, a, ok, wa, wok)
		}
	}
	return m
}
