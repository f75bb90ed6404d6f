package testgate

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// root is the module root, seen from this package's directory.
const root = "../.."

// piece is one `$(call campaign,PKG,TESTS)` recipe line of the Makefile.
type piece struct {
	target, pkg string
	tests       *regexp.Regexp
}

// makefilePieces reads the Makefile's CAMPAIGN_PIECES list and its
// campaign recipe lines.
func makefilePieces(t *testing.T, text string) (listed []string, pieces []piece) {
	t.Helper()
	lines := strings.Split(text, "\n")
	call := regexp.MustCompile(`^\t\$\(call campaign,(\./[^,]+),([^)]+)\)$`)
	target := ""
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.HasPrefix(line, "CAMPAIGN_PIECES :=") {
			list := strings.TrimPrefix(line, "CAMPAIGN_PIECES :=")
			for strings.HasSuffix(list, "\\") && i+1 < len(lines) {
				i++
				list = strings.TrimSuffix(list, "\\") + " " + lines[i]
			}
			listed = strings.Fields(list)
			continue
		}
		if m := regexp.MustCompile(`^([A-Za-z0-9_-]+):`).FindStringSubmatch(line); m != nil {
			target = m[1]
			continue
		}
		if m := call.FindStringSubmatch(line); m != nil {
			re, err := regexp.Compile("^(" + m[2] + ")$")
			if err != nil {
				t.Fatalf("Makefile line %d: %v", i+1, err)
			}
			pieces = append(pieces, piece{target, m[1], re})
		}
	}
	return listed, pieces
}

// campaignTests lists, as "./dir TestName", the tests of the module that
// call testgate.Campaign.
func campaignTests(t *testing.T) []string {
	t.Helper()
	var out []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "out" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok && isCampaignCall(c) {
					out = append(out, "./"+filepath.ToSlash(rel)+" "+fn.Name.Name)
					return false
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func isCampaignCall(c *ast.CallExpr) bool {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Campaign" {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == "testgate"
}

// TestCampaignTestsHaveAPiece keeps `make campaign-checks` complete: every
// test that calls testgate.Campaign is run by a campaign piece of the
// Makefile, every piece is listed in CAMPAIGN_PIECES, and every piece runs
// at least one such test.
func TestCampaignTestsHaveAPiece(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	listed, pieces := makefilePieces(t, string(b))
	if len(listed) == 0 || len(pieces) == 0 {
		t.Fatalf("the Makefile has %d CAMPAIGN_PIECES and %d campaign recipe lines: the scan is broken", len(listed), len(pieces))
	}
	tests := campaignTests(t)
	if len(tests) == 0 {
		t.Fatal("no test calls testgate.Campaign: the scan is broken")
	}
	used := make([]bool, len(pieces))
	for _, test := range tests {
		pkg, name, _ := strings.Cut(test, " ")
		found := false
		for i, p := range pieces {
			if p.pkg == pkg && p.tests.MatchString(name) {
				found, used[i] = true, true
			}
		}
		if !found {
			t.Errorf("%s calls testgate.Campaign but no campaign piece of the Makefile runs it", test)
		}
	}
	for i, p := range pieces {
		if !slices.Contains(listed, p.target) {
			t.Errorf("Makefile target %s runs a campaign piece but is not in CAMPAIGN_PIECES", p.target)
		}
		if !used[i] {
			t.Errorf("Makefile target %s runs %s %s, which names no campaign-scale test", p.target, p.pkg, p.tests)
		}
	}
	t.Logf("%d campaign-scale tests in %d pieces", len(tests), len(pieces))
}

// The Makefile scan reads pieces and the list across continuation lines.
func TestMakefilePiecesParse(t *testing.T) {
	text := "CAMPAIGN_PIECES := campaign-a \\\n\tcampaign-b\n\ncampaign-a:\n\t$(call campaign,./x,TestA|TestB)\n" +
		"campaign-b: dep\n\t$(call campaign,./y/z,TestC)\n"
	listed, pieces := makefilePieces(t, text)
	if !slices.Equal(listed, []string{"campaign-a", "campaign-b"}) || len(pieces) != 2 {
		t.Fatalf("listed %v, pieces %+v", listed, pieces)
	}
	if p := pieces[0]; p.target != "campaign-a" || p.pkg != "./x" || !p.tests.MatchString("TestB") || p.tests.MatchString("TestBC") {
		t.Errorf("first piece %+v", p)
	}
	if p := pieces[1]; p.target != "campaign-b" || p.pkg != "./y/z" || !p.tests.MatchString("TestC") {
		t.Errorf("second piece %+v", p)
	}
}
