package mutants

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Mutant is one small change to a machine package: in File, the text Old,
// which must occur exactly once, becomes New.
type Mutant struct {
	Name        string // the file name without its extension: NNN-short-name
	Family      string // the rule family it breaks, e.g. "daemon/admission"
	Description string // one line: which rule the change breaks
	File        string // slash path relative to the module root
	Old         string
	New         string
}

// Package is the directory of the mutated file, as a go package pattern.
func (m Mutant) Package() string { return "./" + path.Dir(m.File) + "/" }

// Errors of a mutant file.
var (
	ErrFormat = errors.New("mutant file malformed")
	ErrStale  = errors.New("mutant stale")
)

// Targets are the roots a mutant may change: the machine packages.
var Targets = []string{"wire", "core", "daemon"}

// ModelFiles are the simulator files a mutant may change besides Targets:
// they model a rule a production shell keeps outside the machines (the
// store refusing a fenced Core's commit, the shell withholding the effects
// of a batch whose commit was refused), so the oracles of that rule need a
// bug there to bite on.
var ModelFiles = []string{"sim/world/failover.go"}

var (
	nameRE   = regexp.MustCompile(`^[0-9]{3}-[a-z0-9]+(-[a-z0-9]+)*$`)
	familyRE = regexp.MustCompile(`^[a-z]+/[a-z0-9-]+$`)
)

// Suffix is the extension of a mutant file.
const Suffix = ".txt"

// Parse reads one mutant file. The file is a header of "key: value" lines
// (family, description, file; lines starting with # are comments), then a
// line "old:" followed by the old text, then a line "new:" followed by the
// new text up to the end of the file (its final newline not included).
func Parse(name string, data []byte) (Mutant, error) {
	m := Mutant{Name: name}
	fail := func(format string, args ...any) (Mutant, error) {
		return Mutant{}, fmt.Errorf("%w: %s: %s", ErrFormat, name, fmt.Sprintf(format, args...))
	}
	if !nameRE.MatchString(name) {
		return fail("name must look like 000-short-name")
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	head, body, ok := strings.Cut(text, "\nold:\n")
	if !ok {
		return fail(`no "old:" line`)
	}
	old, repl, ok := strings.Cut(body, "\nnew:\n")
	if !ok {
		if strings.HasSuffix(body, "\nnew:") {
			old, repl = strings.TrimSuffix(body, "\nnew:"), ""
		} else {
			return fail(`no "new:" line after the old text`)
		}
	}
	m.Old, m.New = old, strings.TrimSuffix(repl, "\n")
	seen := map[string]bool{}
	for _, line := range strings.Split(head, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		value = strings.TrimSpace(value)
		if !ok || value == "" {
			return fail("header line %q is not key: value", line)
		}
		if seen[key] {
			return fail("header %q given twice", key)
		}
		seen[key] = true
		switch key {
		case "family":
			m.Family = value
		case "description":
			m.Description = value
		case "file":
			m.File = value
		default:
			return fail("unknown header %q", key)
		}
	}
	return m, m.validate(fail)
}

func (m Mutant) validate(fail func(string, ...any) (Mutant, error)) error {
	var err error
	switch {
	case m.Family == "" || m.Description == "" || m.File == "":
		_, err = fail("family, description and file are required")
	case !familyRE.MatchString(m.Family):
		_, err = fail("family %q must look like root/rule", m.Family)
	case path.Clean(m.File) != m.File || path.IsAbs(m.File) || strings.HasPrefix(m.File, ".."):
		_, err = fail("file %q must be a clean relative slash path", m.File)
	case !slices.Contains(Targets, strings.Split(m.File, "/")[0]) && !slices.Contains(ModelFiles, m.File):
		_, err = fail("file %q is outside %s and the model files %s", m.File, strings.Join(Targets, ", "), strings.Join(ModelFiles, ", "))
	case !strings.HasSuffix(m.File, ".go") || strings.HasSuffix(m.File, "_test.go"):
		_, err = fail("file %q must be a non-test Go file", m.File)
	case strings.Split(m.Family, "/")[0] != strings.Split(m.File, "/")[0]:
		_, err = fail("family %q and file %q name different roots", m.Family, m.File)
	case m.Old == "":
		_, err = fail("old text is empty")
	case m.Old == m.New:
		_, err = fail("old and new text are the same")
	}
	return err
}

// Load reads every mutant file of dir, in name order.
func Load(dir string) ([]Mutant, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*"+Suffix))
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var out []Mutant
	var errs []error
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		m, err := Parse(strings.TrimSuffix(filepath.Base(n), Suffix), data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, m)
	}
	if len(out) == 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("no mutant files (*%s) in %s", Suffix, dir))
	}
	return out, errors.Join(errs...)
}

// Select keeps the mutants whose name matches pattern (a regular
// expression); an empty pattern keeps all.
func Select(ms []Mutant, pattern string) ([]Mutant, error) {
	if pattern == "" {
		return ms, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("mutant pattern: %w", err)
	}
	var out []Mutant
	for _, m := range ms {
		if re.MatchString(m.Name) {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no mutant matches %q", pattern)
	}
	return out, nil
}

// Mutate applies m to src, the content of m.File. It fails with ErrStale
// unless m.Old occurs exactly once.
func (m Mutant) Mutate(src string) (string, error) {
	if n := strings.Count(src, m.Old); n != 1 {
		return "", fmt.Errorf("%w: %s: old text occurs %d times in %s", ErrStale, m.Name, n, m.File)
	}
	return strings.Replace(src, m.Old, m.New, 1), nil
}

// Apply applies m to the tree at root.
func (m Mutant) Apply(root string) error {
	file := filepath.Join(root, filepath.FromSlash(m.File))
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: %s: %s does not exist", ErrStale, m.Name, m.File)
	}
	if err != nil {
		return err
	}
	out, err := m.Mutate(string(data))
	if err != nil {
		return err
	}
	return os.WriteFile(file, []byte(out), 0o644)
}
