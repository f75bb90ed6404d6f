package core

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// indexWriters are the only functions that may write Machine.sessions,
// Machine.order, Machine.turns, Machine.turnList, Machine.preps,
// Machine.prepList, Machine.subs, Machine.subList, Machine.devices, Machine.deviceList, Machine.ready,
// the key and slot of their values and a Session's queue, prep and
// backoff: checkInvariants judges the maps by the slices on that promise,
// selectConn walks deviceList for the devices, schedule the ready marks
// for the Sessions.
var indexWriters = []string{"addSession", "addTurn", "removeTurn", "addPrep", "dropPrep", "addSub", "dropSub", "addDevice",
	"setQueue", "setPrep", "setBackoff", "setReady"}

// TestIndexWriters finds every assignment to, element assignment in,
// delete or clear of those fields, and every write of a key or slot, in
// the package's code and fails for each one outside indexWriters.
func TestIndexWriters(t *testing.T) {
	guarded := []string{"sessions", "order", "turns", "turnList", "prepList", "subList", "devices", "deviceList", "key", "slot",
		"ready", "queue", "prep", "backoff"}
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	writes := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		f, err := parser.ParseFile(fset, name, src, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			allowed := slices.Contains(indexWriters, fn.Name.Name)
			report := func(n ast.Node, field string) {
				if allowed {
					writes++
					return
				}
				require.Fail(t, fmt.Sprintf("%s: %s writes %s outside %v", fset.Position(n.Pos()), fn.Name.Name, field, indexWriters))
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.AssignStmt:
					if n.Tok == token.DEFINE {
						return true
					}
					for _, lhs := range n.Lhs {
						if field := guardedField(lhs, guarded); field != "" {
							report(n, field)
						}
					}
				case *ast.IncDecStmt:
					if field := guardedField(n.X, guarded); field != "" {
						report(n, field)
					}
				case *ast.CallExpr:
					if id, ok := n.Fun.(*ast.Ident); ok && (id.Name == "delete" || id.Name == "clear") && len(n.Args) > 0 {
						if field := guardedField(n.Args[0], guarded); field != "" {
							report(n, field)
						}
					}
				}
				return true
			})
		}
	}
	require.NotEqual(t, 0, writes, "no write found in the index writers: the scan is broken")
}

// guardedField is the guarded field e writes (x.f or x.f[i]), or "";
// m.preps and m.subs too (conn's preps, a count, and turn's subs share
// the names: the Machine is m throughout the package).
func guardedField(e ast.Expr, guarded []string) string {
	if ix, ok := e.(*ast.IndexExpr); ok {
		e = ix.X
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	if slices.Contains(guarded, sel.Sel.Name) {
		return sel.Sel.Name
	}
	if x, ok := sel.X.(*ast.Ident); ok && x.Name == "m" && (sel.Sel.Name == "preps" || sel.Sel.Name == "subs") {
		return sel.Sel.Name
	}
	return ""
}
