package mutants

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func campaignOutput(lines ...string) string {
	return `{"first":1,"seeds":4,"shard":"0/1","config":{}}` + "\n" + strings.Join(lines, "\n") + "\n"
}

func TestReadCampaignFindsFirstFailureAndChecks(t *testing.T) {
	out := campaignOutput(
		`{"seed":1,"violations":[],"lin":{"result":"ok"}}`,
		`{"seed":2,"violations":[{"check":"panic"}],"lin":{"result":"ok"}}`,
		`{"seed":3,"violations":[{"check":"steer_receipts"},{"check":"panic"}],"lin":{"result":"ok"}}`,
		`{"seed":4,"violations":[],"lin":{"result":"illegal"},"audit":{"diverged":true}}`,
	)
	c, err := ReadCampaign(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if c.Seeds != 4 || c.FailingSeeds != 3 || c.FirstSeed != 2 || c.FirstCheck != "panic" || !c.CheckerCaught {
		t.Fatalf("got %+v", c)
	}
	if got := strings.Join(c.Checks, ","); got != "determinism,linearizability,panic,steer_receipts" {
		t.Fatalf("checks %s", got)
	}
	if c.Status() != StatusCaught {
		t.Fatalf("status %s", c.Status())
	}
}

func TestReadCampaignPanicOnlyIsNoCatch(t *testing.T) {
	out := campaignOutput(`{"seed":5,"violations":[{"check":"panic"}]}`, `{"seed":6,"violations":[]}`)
	c, err := ReadCampaign(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if c.Status() != StatusPanicOnly || c.FirstSeed != 5 || c.FailingSeeds != 1 {
		t.Fatalf("got %+v status %s", c, c.Status())
	}
	c, err = ReadCampaign(strings.NewReader(campaignOutput(`{"seed":1,"violations":[]}`)))
	if err != nil || c.Status() != StatusMissed || c.Seeds != 1 {
		t.Fatalf("got %+v, %v", c, err)
	}
}

func TestReadCampaignRejectsGarbage(t *testing.T) {
	for name, out := range map[string]string{
		"empty":      "",
		"not json":   campaignOutput("FAIL SEED=3"),
		"no seed":    campaignOutput(`{"violations":[]}`),
		"truncated":  campaignOutput(`{"seed":1,"viol`),
		"wrong type": campaignOutput(`{"seed":"x"}`),
	} {
		if _, err := ReadCampaign(strings.NewReader(out)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func results() []Result {
	return []Result{
		{Name: "001-a", Family: "wire/limits", Status: StatusCaught, Seeds: 100, FirstSeed: 7, FailingSeeds: 3,
			FirstCheck: "frames", Checks: []string{"frames", "panic"}, Unit: UnitCaught},
		{Name: "002-b", Family: "core/steering", Status: StatusCaught, Seeds: 100, FirstSeed: 40, FailingSeeds: 1,
			FirstCheck: "steer", Checks: []string{"steer"}, Unit: UnitMissed},
		{Name: "003-c", Family: "core/cancel", Status: StatusPanicOnly, Seeds: 100, FirstSeed: 2, FailingSeeds: 9,
			FirstCheck: "panic", Checks: []string{"panic"}, Unit: UnitCaught},
		{Name: "004-d", Family: "daemon/capacity", Status: StatusMissed, Seeds: 100, Unit: UnitBuildFailed},
		{Name: "005-e", Family: "daemon/capacity", Status: StatusStale, Unit: UnitSkipped, Detail: "old text occurs 0 times"},
		{Name: "006-f", Family: "daemon/capacity", Status: StatusBuildFailed, Unit: UnitSkipped, Detail: "x.go:1: undefined: y"},
	}
}

func TestSumCountsAndMedian(t *testing.T) {
	got := Sum(results())
	want := Totals{Mutants: 6, Measured: 4, Caught: 2, PanicOnly: 1, Missed: 1, Stale: 1, BuildFailed: 1,
		CaughtPercent: 50, MedianFirstSeed: 23.5, UnitCaught: 2, UnitRun: 4}
	if got != want {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if m := Sum(results()[:1]).MedianFirstSeed; m != 7 {
		t.Fatalf("median of one: %v", m)
	}
	if z := Sum(nil); z.CaughtPercent != 0 || z.MedianFirstSeed != 0 {
		t.Fatalf("empty: %+v", z)
	}
}

func TestWriteTextRendersEveryStatus(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, results()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 9 { // header, 6 rows, blank, totals
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	for i, want := range [][]string{
		{"mutant", "family", "caught", "first seed", "failing seeds", "first check", "checks", "unit tests"},
		{"001-a", "wire/limits", "yes", "7", "3/100", "frames", "frames,panic", "yes"},
		{"003-c", "core/cancel", "panic-only", "2", "9/100", "panic"},
		{"004-d", "daemon/capacity", "no", "-", "0/100", "-", "-", "build-failed"},
		{"005-e", "daemon/capacity", "stale", "-", "-", "-", "-", "-"},
		{"006-f", "daemon/capacity", "build-failed"},
	} {
		line := lines[[]int{0, 1, 3, 4, 5, 6}[i]]
		f := strings.Fields(line)
		joined := strings.Join(f, " ")
		if !strings.HasPrefix(joined, strings.Join(want, " ")) {
			t.Errorf("line %q, want it to start with %q", line, strings.Join(want, " "))
		}
	}
	if !strings.HasPrefix(lines[8], "caught 2 of 4 measured (50.0 %); median first failing seed 23.5; panic-only 1;") {
		t.Errorf("totals %q", lines[8])
	}
}

func TestWriteMarkdownTableAndNotes(t *testing.T) {
	rs := results()
	rs[0].Description = "a | pipe"
	rs[0].FirstCheck = "x|y"
	var b bytes.Buffer
	if err := WriteMarkdown(&b, rs); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"| mutant | family | caught | first seed | failing seeds | first check | checks | unit tests |\n|---|---|---|---|---|---|---|---|\n",
		"| 001-a | wire/limits | yes | 7 | 3/100 | x\\|y | frames,panic | yes |\n",
		"| 005-e | daemon/capacity | stale | - | - | - | - | - |\n",
		"caught 2 of 4 measured (50.0 %)",
		"- `005-e` ():  — old text occurs 0 times\n",
		"- `001-a` (): a | pipe\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
}

func TestWriteJSONCarriesTotals(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, Report{Seeds: 100, Commit: "abc", Results: results()}); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Totals != Sum(results()) || len(back.Results) != 6 || back.Results[2].Status != StatusPanicOnly ||
		back.Results[0].Checks[1] != "panic" {
		t.Fatalf("round trip: %+v", back)
	}
}
