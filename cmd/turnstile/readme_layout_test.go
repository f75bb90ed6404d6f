package main

import (
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// layoutRow is one row of the README's Layout table: the directories its
// first cell names and its description.
type layoutRow struct {
	dirs []string
	what string
}

// readmeLayout parses the table under "## Layout" in README.md.
func readmeLayout(t *testing.T, root string) []layoutRow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Layout\n")
	if !ok {
		t.Fatal(`README.md has no "## Layout" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var rows []layoutRow
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if !strings.HasPrefix(line, "| `") || len(cells) != 2 {
			continue
		}
		var r layoutRow
		for _, m := range regexp.MustCompile("`([^`]+)/`").FindAllStringSubmatch(cells[0], -1) {
			r.dirs = append(r.dirs, m[1])
		}
		r.what = cells[1]
		rows = append(rows, r)
	}
	return rows
}

// packageSynopsis returns the first sentence of the package doc of the Go
// package in dir ("" when dir holds no Go package or it has no doc).
func packageSynopsis(t *testing.T, dir string) (synopsis string, isPackage bool) {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	for _, p := range pkgs {
		isPackage = true
		for _, f := range p.Files {
			if f.Doc != nil {
				return new(doc.Package).Synopsis(f.Doc.Text()), true
			}
		}
	}
	return "", isPackage
}

// words lowercases s and splits it into its words, with backticks and
// punctuation dropped.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '–'
	})
}

// lead is the part of a row description before its first ':', ';', ',' or
// '(' — the phrase that says what the package is.
func lead(what string) string {
	if i := strings.IndexAny(what, ":;,("); i >= 0 {
		return what[:i]
	}
	return what
}

// TestReadmeLayoutAgreesWithPackageDocs keeps the README's Layout table
// true to the tree: every directory a row names exists; a row naming one Go
// package describes it in the words of that package doc's first sentence
// (each word of four letters or more in the row's leading phrase occurs in
// the synopsis); and every package of the module is named by a row, either
// in its first cell or, for a helper subpackage such as transporttest, in a
// description.
func TestReadmeLayoutAgreesWithPackageDocs(t *testing.T) {
	root := "../.."
	rows := readmeLayout(t, root)
	if len(rows) < 25 {
		t.Fatalf("the Layout table has only %d rows; the parser lost them", len(rows))
	}
	named := map[string]bool{}
	for _, r := range rows {
		for _, d := range r.dirs {
			named[d] = true
			syn, isPackage := packageSynopsis(t, filepath.Join(root, filepath.FromSlash(d)))
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(d))); err != nil {
				t.Errorf("README layout names %s/: %v", d, err)
				continue
			}
			if !isPackage || len(r.dirs) > 1 {
				continue
			}
			if syn == "" {
				t.Errorf("%s/ has no package doc to agree with", d)
				continue
			}
			have := words(syn)
			for _, w := range words(lead(r.what)) {
				if len([]rune(w)) >= 4 && !slices.Contains(have, w) {
					t.Errorf("README layout row %s/ says %q: %q is not in its package doc's first sentence %q", d, lead(r.what), w, syn)
				}
			}
		}
	}
	table := strings.Join(slicesOfWhat(rows), " ")
	err := filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		base := e.Name()
		if rel != "." && (strings.HasPrefix(base, ".") || base == "testdata") {
			return filepath.SkipDir
		}
		if _, isPackage := packageSynopsis(t, path); !isPackage || named[rel] {
			return nil
		}
		if !strings.Contains(table, "`"+base+"`") {
			t.Errorf("package %s is named by no row of the README's Layout table", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func slicesOfWhat(rows []layoutRow) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.what
	}
	return out
}
