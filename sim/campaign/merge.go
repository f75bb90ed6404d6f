package campaign

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// lineBytesMax bounds one JSON line of a shard file.
const lineBytesMax = 16 << 20

// ErrMergeConflict marks a seed reported twice with different fingerprints.
var ErrMergeConflict = errors.New("seed reported with different fingerprints")

// Merger combines the JSON-lines output of campaign shards.
type Merger struct {
	headers    []Header
	reports    map[uint64]SeedReport
	duplicates []uint64 // seeds seen again with the same fingerprint
	conflicts  []uint64 // seeds seen again with another fingerprint
}

// NewMerger returns an empty merger.
func NewMerger() *Merger { return &Merger{reports: map[uint64]SeedReport{}} }

// Read adds every line of one shard file; name labels errors.
func (m *Merger) Read(name string, r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), lineBytesMax)
	for n := 1; sc.Scan(); n++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		h, rep, err := ParseLine([]byte(text))
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if h != nil {
			m.headers = append(m.headers, *h)
			continue
		}
		m.add(*rep)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func (m *Merger) add(rep SeedReport) {
	old, ok := m.reports[rep.Seed]
	if !ok {
		m.reports[rep.Seed] = rep
		return
	}
	if old.Fingerprint != rep.Fingerprint {
		m.conflicts = append(m.conflicts, rep.Seed)
		if rep.Failed() && !old.Failed() {
			m.reports[rep.Seed] = rep
		}
		return
	}
	m.duplicates = append(m.duplicates, rep.Seed)
}

// MergeResult is a merged campaign.
type MergeResult struct {
	Summary    *Summary
	Headers    []Header
	Missing    []uint64 // planned seeds with no report
	Duplicates []uint64 // seeds reported more than once, identically
	Conflicts  []uint64 // seeds reported more than once, differently
}

// Result folds the reports in seed order. The planned range comes from the
// headers when they agree, else from the lowest and highest seed seen.
func (m *Merger) Result() MergeResult {
	res := MergeResult{Summary: NewSummary(), Headers: m.headers,
		Duplicates: sortedUnique(m.duplicates), Conflicts: sortedUnique(m.conflicts)}
	seeds := make([]uint64, 0, len(m.reports))
	for s := range m.reports { //tidy:sorted sorted below
		seeds = append(seeds, s)
	}
	slices.Sort(seeds)
	if len(m.headers) > 0 {
		res.Summary.Config = m.headers[0].Config
	}
	for _, s := range seeds {
		res.Summary.Add(m.reports[s])
	}
	first, last, ok := m.planned(seeds)
	if ok {
		for s := first; s <= last; s++ {
			if _, seen := m.reports[s]; !seen {
				res.Missing = append(res.Missing, s)
			}
		}
	}
	if len(res.Missing) > 0 {
		res.Summary.problems = append(res.Summary.problems,
			fmt.Errorf("%d planned seeds missing", len(res.Missing)))
	}
	if len(res.Conflicts) > 0 {
		res.Summary.problems = append(res.Summary.problems,
			fmt.Errorf("%w: %d seeds", ErrMergeConflict, len(res.Conflicts)))
	}
	return res
}

// planned returns the campaign's seed range.
func (m *Merger) planned(seeds []uint64) (first, last uint64, ok bool) {
	if len(m.headers) > 0 {
		h := m.headers[0]
		agree := true
		for _, o := range m.headers[1:] {
			agree = agree && o.First == h.First && o.Seeds == h.Seeds
		}
		if agree && h.Seeds > 0 {
			return h.First, h.First + uint64(h.Seeds) - 1, true
		}
	}
	if len(seeds) == 0 {
		return 0, 0, false
	}
	return seeds[0], seeds[len(seeds)-1], true
}

// Err is nil when the merged campaign passed and is complete.
func (r MergeResult) Err() error { return r.Summary.Err() }

// Write renders the merge: shards, gaps and duplicates, then the summary.
func (r MergeResult) Write(w io.Writer) {
	fmt.Fprintf(w, "merged %d shard headers, %d seeds\n", len(r.Headers), r.Summary.Seeds)
	if len(r.Missing) > 0 {
		fmt.Fprintf(w, "missing seeds: %d: %s\n", len(r.Missing), Ranges(r.Missing))
	}
	if len(r.Duplicates) > 0 {
		fmt.Fprintf(w, "duplicate seeds (identical, counted once): %d: %s\n", len(r.Duplicates), Ranges(r.Duplicates))
	}
	if len(r.Conflicts) > 0 {
		fmt.Fprintf(w, "NONDETERMINISTIC: seeds reported with different fingerprints: %s\n", Ranges(r.Conflicts))
	}
	r.Summary.Write(w)
}

// Ranges renders ascending seeds compactly: "1..4 7 9..10".
func Ranges(seeds []uint64) string {
	var parts []string
	for i := 0; i < len(seeds); {
		j := i
		for j+1 < len(seeds) && seeds[j+1] == seeds[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, fmt.Sprint(seeds[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d..%d", seeds[i], seeds[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, " ")
}

func sortedUnique(xs []uint64) []uint64 {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}
