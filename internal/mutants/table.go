package mutants

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// Totals sum up a suite run.
type Totals struct {
	Mutants     int `json:"mutants"`
	Measured    int `json:"measured"` // campaigns that ran to their end
	Caught      int `json:"caught"`   // by a checker
	PanicOnly   int `json:"panic_only"`
	Missed      int `json:"missed"`
	Stale       int `json:"stale"`
	BuildFailed int `json:"build_failed"`
	Errors      int `json:"errors"`
	// CaughtPercent is Caught over Measured.
	CaughtPercent float64 `json:"caught_percent"`
	// MedianFirstSeed is the median, over caught mutants, of the first
	// failing seed; 0 when none was caught.
	MedianFirstSeed float64 `json:"median_first_seed"`
	// UnitCaught counts the mutants the unit tests of their own package
	// catch, out of UnitRun that ran them.
	UnitCaught int `json:"unit_caught"`
	UnitRun    int `json:"unit_run"`
}

// Sum computes the totals of rs.
func Sum(rs []Result) Totals {
	t := Totals{Mutants: len(rs)}
	var firsts []float64
	for _, r := range rs {
		switch r.Status {
		case StatusCaught:
			t.Caught++
			firsts = append(firsts, float64(r.FirstSeed))
		case StatusPanicOnly:
			t.PanicOnly++
		case StatusMissed:
			t.Missed++
		case StatusStale:
			t.Stale++
		case StatusBuildFailed:
			t.BuildFailed++
		default:
			t.Errors++
		}
		switch r.Unit {
		case UnitCaught:
			t.UnitCaught++
			t.UnitRun++
		case UnitMissed, UnitBuildFailed:
			t.UnitRun++
		}
	}
	t.Measured = t.Caught + t.PanicOnly + t.Missed
	if t.Measured > 0 {
		t.CaughtPercent = 100 * float64(t.Caught) / float64(t.Measured)
	}
	if n := len(firsts); n > 0 {
		slices.Sort(firsts)
		t.MedianFirstSeed = (firsts[(n-1)/2] + firsts[n/2]) / 2
	}
	return t
}

// String is the one-line summary of the totals.
func (t Totals) String() string {
	return fmt.Sprintf("caught %d of %d measured (%.1f %%); median first failing seed %g; panic-only %d; "+
		"missed %d; stale %d; build-failed %d; errors %d; unit tests catch %d of %d",
		t.Caught, t.Measured, t.CaughtPercent, t.MedianFirstSeed, t.PanicOnly,
		t.Missed, t.Stale, t.BuildFailed, t.Errors, t.UnitCaught, t.UnitRun)
}

var columns = []string{"mutant", "family", "caught", "first seed", "failing seeds", "first check", "checks", "unit tests"}

func (r Result) cells() []string {
	first, failing := "-", "-"
	switch r.Status {
	case StatusCaught, StatusPanicOnly, StatusMissed:
		failing = fmt.Sprintf("%d/%d", r.FailingSeeds, r.Seeds)
		if r.FailingSeeds > 0 {
			first = fmt.Sprint(r.FirstSeed)
		}
	}
	return []string{r.Name, r.Family, string(r.Status), first, failing, orDash(r.FirstCheck),
		orDash(strings.Join(r.Checks, ",")), string(r.Unit)}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WriteText writes the table aligned in columns, then the totals.
func WriteText(w io.Writer, rs []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(columns, "\t"))
	for _, r := range rs {
		fmt.Fprintln(tw, strings.Join(r.cells(), "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s\n", Sum(rs))
	return err
}

// WriteMarkdown writes the table as a Markdown table, each mutant's
// description and any detail below it, then the totals.
func WriteMarkdown(w io.Writer, rs []Result) error {
	var b strings.Builder
	b.WriteString("| " + strings.Join(columns, " | ") + " |\n|")
	for range columns {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range rs {
		cells := r.cells()
		for i, c := range cells {
			cells[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	b.WriteString("\n" + Sum(rs).String() + "\n\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "- `%s` (%s): %s", r.Name, r.File, r.Description)
		if r.Detail != "" {
			fmt.Fprintf(&b, " — %s", firstLine(r.Detail))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// Report is the JSON form of a suite run.
type Report struct {
	Seeds   int      `json:"seeds"`   // asked per mutant
	Commit  string   `json:"commit"`  // of the tree mutated
	Results []Result `json:"results"` // in mutant name order
	Totals  Totals   `json:"totals"`
}

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, rep Report) error {
	rep.Totals = Sum(rep.Results)
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
