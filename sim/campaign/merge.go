package campaign

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
)

// lineBytesMax bounds one JSON line of a shard file.
const lineBytesMax = 16 << 20

// ErrMergeConflict marks a seed reported twice with different fingerprints.
var ErrMergeConflict = errors.New("seed reported with different fingerprints")

// ErrShardMismatch marks shard headers that disagree on the campaign: its
// first seed, seed count or configuration (devices, turns, faults). Such
// shards are not one campaign and are never merged.
var ErrShardMismatch = errors.New("shards are not one campaign")

// ErrShardLine marks a shard line that does not decode as a header or a
// seed's report; the error names the file and the line.
var ErrShardLine = errors.New("shard line does not decode")

// ErrShardEmpty marks a shard file with no line at all: not the output of
// 'turnstile sim -json'.
var ErrShardEmpty = errors.New("shard file is empty: no header, no seed")

// ErrNoSeeds marks a merge that read no seed's report: it checked nothing,
// which is never a pass.
var ErrNoSeeds = errors.New("the shards hold no seed: nothing was checked")

// Merger combines the JSON-lines output of campaign shards.
type Merger struct {
	headers    []Header
	reports    map[uint64]SeedReport
	duplicates []uint64 // seeds seen again with the same fingerprint
	conflicts  []uint64 // seeds seen again with another fingerprint
	warnings   []string // truncated lines, differing commits
	// MarkNeeds is handed to the merged summary (see Summary.MarkNeeds).
	MarkNeeds func(check.Mark) ([]sim.FaultKind, bool)
}

// NewMerger returns an empty merger.
func NewMerger() *Merger { return &Merger{reports: map[uint64]SeedReport{}} }

// Read adds every line of one shard file; name labels errors. A last line
// that does not parse and does not end in a newline, after lines that did
// parse (a shard cut off while writing), is dropped with a warning: its
// seed then counts as missing. A file with no line (ErrShardEmpty), a line
// that does not decode anywhere else (ErrShardLine, naming file and line),
// or a header that disagrees with an earlier one (ErrShardMismatch) is an
// error.
func (m *Merger) Read(name string, r io.Reader) error {
	tail := &lastByte{r: r}
	sc := bufio.NewScanner(tail)
	sc.Buffer(make([]byte, 64<<10), lineBytesMax)
	var bad error
	badLine, good := 0, 0
	for n := 1; sc.Scan(); n++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		if bad != nil {
			return bad // a bad line that was not the last
		}
		h, rep, err := ParseLine([]byte(text))
		if err != nil {
			bad, badLine = fmt.Errorf("%s:%d: %w: %v", name, n, ErrShardLine, err), n
			continue
		}
		good++
		if h != nil {
			if err := m.addHeader(name, *h); err != nil {
				return err
			}
			continue
		}
		m.add(*rep)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if bad != nil && (good == 0 || tail.last == '\n') {
		return bad // not a line cut off mid-write: garbage
	}
	if bad == nil && good == 0 {
		return fmt.Errorf("%s: %w", name, ErrShardEmpty)
	}
	if bad != nil {
		m.warnings = append(m.warnings, fmt.Sprintf(
			"%s:%d: truncated last line ignored (its seed counts as missing)", name, badLine))
	}
	return nil
}

// lastByte remembers the last byte read through it.
type lastByte struct {
	r    io.Reader
	last byte
}

func (l *lastByte) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if n > 0 {
		l.last = p[n-1]
	}
	return n, err
}

// addHeader keeps a shard header after checking that it describes the same
// campaign as the first one; a different commit is only a warning.
func (m *Merger) addHeader(name string, h Header) error {
	if len(m.headers) > 0 {
		f := m.headers[0]
		fc, _ := json.Marshal(f.Config)
		hc, _ := json.Marshal(h.Config)
		if f.First != h.First || f.Seeds != h.Seeds || string(fc) != string(hc) {
			return fmt.Errorf("%w: %s: seeds %d from %d with config %s, but the first shard has seeds %d from %d with config %s",
				ErrShardMismatch, name, h.Seeds, h.First, hc, f.Seeds, f.First, fc)
		}
		if f.Budget != h.Budget {
			return fmt.Errorf("%w: %s: time budget %q, but the first shard has %q",
				ErrShardMismatch, name, h.Budget, f.Budget)
		}
		if h.Commit != f.Commit {
			m.warnings = append(m.warnings, fmt.Sprintf("warning: %s ran on commit %s, the first shard on %s",
				name, orUnknown(h.Commit), orUnknown(f.Commit)))
		}
	}
	m.headers = append(m.headers, h)
	return nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
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
	Warnings   []string // truncated last lines, differing commits
	Missing    []uint64 // planned seeds with no report
	Duplicates []uint64 // seeds reported more than once, identically
	Conflicts  []uint64 // seeds reported more than once, differently
}

// Result folds the reports in seed order. The planned range comes from the
// headers when they agree, else from the lowest and highest seed seen.
func (m *Merger) Result() MergeResult {
	res := MergeResult{Summary: NewSummary(), Headers: m.headers, Warnings: m.warnings,
		Duplicates: sortedUnique(m.duplicates), Conflicts: sortedUnique(m.conflicts)}
	seeds := make([]uint64, 0, len(m.reports))
	for s := range m.reports { //tidy:sorted sorted below
		seeds = append(seeds, s)
	}
	slices.Sort(seeds)
	if len(m.headers) > 0 {
		res.Summary.Config = m.headers[0].Config
	}
	res.Summary.MarkNeeds = m.MarkNeeds
	for _, s := range seeds {
		res.Summary.Add(m.reports[s])
	}
	// A time-budgeted campaign plans more seeds than its shards run: no
	// seed of it is missing.
	first, last, ok := m.planned(seeds)
	if ok && !m.budgeted() {
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

// budgeted reports whether the shards ran on a time budget.
func (m *Merger) budgeted() bool { return len(m.headers) > 0 && m.headers[0].Budget != "" }

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

// Err is nil when the merged campaign passed and is complete; ErrNoSeeds
// when no seed was read.
func (r MergeResult) Err() error {
	if r.Summary.Seeds == 0 {
		return ErrNoSeeds
	}
	return r.Summary.Err()
}

// Write renders the merge: shards, gaps and duplicates, then the summary.
func (r MergeResult) Write(w io.Writer) {
	fmt.Fprintf(w, "merged %d shard headers, %d seeds\n", len(r.Headers), r.Summary.Seeds)
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "%s\n", warn)
	}
	if len(r.Missing) > 0 {
		fmt.Fprintf(w, "%s\n", r.missingLine())
	}
	if len(r.Duplicates) > 0 {
		fmt.Fprintf(w, "duplicate seeds (identical, counted once): %d: %s\n", len(r.Duplicates), Ranges(r.Duplicates))
	}
	if len(r.Conflicts) > 0 {
		fmt.Fprintf(w, "NONDETERMINISTIC: seeds reported with different fingerprints: %s\n", Ranges(r.Conflicts))
	}
	r.Summary.Write(w)
}

// missingShown bounds the missing seeds a merge names.
const missingShown = 10

// missingLine summarises the missing seeds: the absent shards when the
// gaps are exactly whole shards of the headers' sharding, else the first
// few seeds and the count.
func (r MergeResult) missingLine() string {
	n := len(r.Missing)
	if absent := r.absentShards(); absent != "" {
		return fmt.Sprintf("%d seeds missing: %s absent?", n, absent)
	}
	shown := r.Missing[:min(n, missingShown)]
	more := ""
	if n > len(shown) {
		more = fmt.Sprintf(" ... (first %d of %d)", len(shown), n)
	}
	return fmt.Sprintf("%d seeds missing: %s%s", n, Ranges(shown), more)
}

// absentShards names the shards ("shard 1/2", "shards 1/4 3/4") whose seeds
// are exactly the missing ones, or "" when the gaps are not whole shards.
func (r MergeResult) absentShards() string {
	if len(r.Headers) == 0 {
		return ""
	}
	h := r.Headers[0]
	first, err := ParseShard(h.Shard)
	if err != nil || first.Count < 2 {
		return ""
	}
	count := first.Count
	present := map[int]bool{}
	for _, o := range r.Headers {
		sh, err := ParseShard(o.Shard)
		if err != nil || sh.Count != count {
			return ""
		}
		present[sh.Index] = true
	}
	var want []uint64
	var names []string
	for i := range count {
		if present[i] {
			continue
		}
		p := Plan{First: h.First, Count: h.Seeds, Shard: Shard{Index: i, Count: count}}
		want = append(want, p.Seeds()...)
		names = append(names, p.Shard.String())
	}
	slices.Sort(want)
	if len(names) == 0 || !slices.Equal(want, r.Missing) {
		return ""
	}
	if len(names) == 1 {
		return "shard " + names[0]
	}
	return "shards " + strings.Join(names, " ")
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
