package sim

// Map-range analysis of the determinism guard (see tidy_test.go for the rules).

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// isMapRange reports whether the ranged expression is a map: by type when
// the type checker resolved it, else by syntax (a map literal or make(map)).
func isMapRange(r *ast.RangeStmt, info *types.Info) bool {
	if t := info.TypeOf(r.X); t != nil {
		_, ok := t.Underlying().(*types.Map)
		return ok
	}
	switch x := r.X.(type) {
	case *ast.CompositeLit:
		_, ok := x.Type.(*ast.MapType)
		return ok
	case *ast.CallExpr:
		if len(x.Args) > 0 {
			_, ok := x.Args[0].(*ast.MapType)
			return ok
		}
	}
	return false
}

// followers maps each range statement to the statements after it in its
// enclosing statement list.
func followers(f *ast.File) map[*ast.RangeStmt][]ast.Stmt {
	out := map[*ast.RangeStmt][]ast.Stmt{}
	record := func(list []ast.Stmt) {
		for i, st := range list {
			if l, ok := st.(*ast.LabeledStmt); ok {
				st = l.Stmt
			}
			if r, ok := st.(*ast.RangeStmt); ok {
				out[r] = list[i+1:]
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BlockStmt:
			record(x.List)
		case *ast.CaseClause:
			record(x.Body)
		case *ast.CommClause:
			record(x.Body)
		}
		return true
	})
	return out
}

// orderFree reports whether a map range cannot leak iteration order: its
// body passes bodyOrderFree and every outer slice it appends to is sorted
// by one of the statements that follow the loop.
func orderFree(r *ast.RangeStmt, after []ast.Stmt) bool {
	locals := map[string]bool{}
	for _, e := range []ast.Expr{r.Key, r.Value} {
		if id, ok := e.(*ast.Ident); ok {
			locals[id.Name] = true
		}
	}
	collected := map[string]bool{}
	if !stmtsOrderFree(r.Body.List, locals, collected) {
		return false
	}
	if collected[markReturn] {
		// an early exit is order-free only if nothing else was changed
		// before it: which iteration exits first then cannot matter
		return len(collected) == 1
	}
	delete(collected, markMutate)
	for _, target := range sortedKeys(collected) {
		if !sortedLater(target, after) {
			return false
		}
	}
	return true
}

func stmtsOrderFree(list []ast.Stmt, locals, collected map[string]bool) bool {
	for _, st := range list {
		if !stmtOrderFree(st, locals, collected) {
			return false
		}
	}
	return true
}

func stmtOrderFree(st ast.Stmt, locals, collected map[string]bool) bool {
	switch s := st.(type) {
	case *ast.IfStmt:
		if s.Init != nil && !stmtOrderFree(s.Init, locals, collected) {
			return false
		}
		return stmtOrderFree(s.Body, locals, collected) &&
			(s.Else == nil || stmtOrderFree(s.Else, locals, collected))
	case *ast.BlockStmt:
		return stmtsOrderFree(s.List, locals, collected)
	case *ast.RangeStmt:
		for _, e := range []ast.Expr{s.Key, s.Value} {
			if id, ok := e.(*ast.Ident); ok {
				locals[id.Name] = true
			}
		}
		return stmtOrderFree(s.Body, locals, collected)
	case *ast.SwitchStmt:
		if s.Init != nil && !stmtOrderFree(s.Init, locals, collected) {
			return false
		}
		for _, c := range s.Body.List {
			if !stmtsOrderFree(c.(*ast.CaseClause).Body, locals, collected) {
				return false
			}
		}
		return true
	case *ast.IncDecStmt:
		collected[markMutate] = true
		return true
	case *ast.ReturnStmt:
		for _, e := range s.Results {
			if mentions(e, locals) {
				return false // first match wins
			}
		}
		collected[markReturn] = true
		return true
	case *ast.BranchStmt:
		return s.Tok == token.CONTINUE
	case *ast.DeclStmt:
		ast.Inspect(s, func(n ast.Node) bool {
			if v, ok := n.(*ast.ValueSpec); ok {
				for _, id := range v.Names {
					locals[id.Name] = true
				}
			}
			return true
		})
		return true
	case *ast.AssignStmt:
		return assignOrderFree(s, locals, collected)
	case *ast.ExprStmt:
		call, ok := s.X.(*ast.CallExpr)
		return ok && orderFreeCall(call, locals)
	}
	return false
}

func assignOrderFree(s *ast.AssignStmt, locals, collected map[string]bool) bool {
	if s.Tok == token.DEFINE {
		for _, l := range s.Lhs {
			if id, ok := l.(*ast.Ident); ok {
				locals[id.Name] = true
			}
		}
		return true
	}
	if s.Tok == token.ADD_ASSIGN || s.Tok == token.SUB_ASSIGN || s.Tok == token.OR_ASSIGN {
		collected[markMutate] = true
		return true // counting and flag sets commute
	}
	for i, l := range s.Lhs {
		if locals[rootIdent(l)] {
			continue
		}
		if len(s.Rhs) != len(s.Lhs) {
			return false
		}
		if accumulates(l, s.Rhs[i]) {
			collected[markMutate] = true
			continue
		}
		call, ok := s.Rhs[i].(*ast.CallExpr)
		if !ok || !isIdent(call.Fun, "append") || len(call.Args) == 0 || !sameExpr(l, call.Args[0]) {
			return false // last write wins: order-dependent
		}
		collected[types.ExprString(l)] = true
	}
	return true
}

// Pseudo-targets recorded by the body walk.
const (
	markReturn = "\x00return"
	markMutate = "\x00mutate"
)

// mentions reports whether e refers to any of the loop's locals.
func mentions(e ast.Expr, locals map[string]bool) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && locals[id.Name] {
			found = true
		}
		return !found
	})
	return found
}

// accumulates reports x = x || e and x = x && e: flag folds that commute.
func accumulates(l, r ast.Expr) bool {
	b, ok := r.(*ast.BinaryExpr)
	if !ok || (b.Op != token.LOR && b.Op != token.LAND) {
		return false
	}
	x := b.X
	for {
		inner, ok := x.(*ast.BinaryExpr)
		if !ok || inner.Op != b.Op {
			break
		}
		x = inner.X
	}
	return sameExpr(l, x)
}

// orderFreeCall accepts delete, assertions and invariant checks (functions
// or methods named assert*/check*/panic*, which only panic), and sorting a
// local.
func orderFreeCall(call *ast.CallExpr, locals map[string]bool) bool {
	switch fn := call.Fun.(type) {
	case *ast.Ident:
		return fn.Name == "delete" || isCheckName(fn.Name)
	case *ast.SelectorExpr:
		if isSortCall(call) {
			return len(call.Args) > 0 && locals[rootIdent(call.Args[0])]
		}
		// assert.That: a method of a package's invariant scope.
		return isCheckName(fn.Sel.Name) || isCheckName(rootIdent(fn.X))
	}
	return false
}

func isCheckName(name string) bool {
	return strings.HasPrefix(name, "assert") || strings.HasPrefix(name, "check") ||
		strings.HasPrefix(name, "panic")
}

// rootIdent returns the variable at the root of x.f[i].g, or "".
func rootIdent(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x.Name
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return ""
		}
	}
}

func isSortCall(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return false
	}
	switch pkg.Name {
	case "slices":
		return strings.HasPrefix(sel.Sel.Name, "Sort")
	case "sort":
		return slices.Contains([]string{"Slice", "SliceStable", "Sort", "Stable", "Strings",
			"Ints", "Float64s"}, sel.Sel.Name)
	}
	return false
}

// sortedLater reports whether one of stmts sorts the slice target.
func sortedLater(target string, stmts []ast.Stmt) bool {
	found := false
	for _, st := range stmts {
		ast.Inspect(st, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && isSortCall(call) && len(call.Args) > 0 &&
				types.ExprString(call.Args[0]) == target {
				found = true
			}
			return !found
		})
	}
	return found
}

func isBlank(e ast.Expr) bool { return isIdent(e, "_") }

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

func sameExpr(a, b ast.Expr) bool { return types.ExprString(a) == types.ExprString(b) }
