package engine_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core/engine"
)

func fieldNames(v any) []string {
	t := reflect.TypeOf(v)
	out := make([]string, t.NumField())
	for i := range out {
		out[i] = t.Field(i).Name
	}
	return out
}

// TestValidatorClassifiesEveryProfileField: a new Profile field needs a
// validator decision before the catalog accepts it.
func TestValidatorClassifiesEveryProfileField(t *testing.T) {
	want := fieldNames(engine.Profile{})
	got := slices.Clone(engine.ProfileFields)
	slices.Sort(want)
	slices.Sort(got)
	require.Truef(t, slices.Equal(got, want), "validator classifies %v, Profile has %v", got, want)
	var c engine.Capabilities
	var names []string
	for _, f := range c.Fields() {
		names = append(names, f.Name)
	}
	capFields := fieldNames(c)
	require.Truef(t, slices.Equal(names, capFields), "Capabilities.Fields lists %v, the struct has %v", names, capFields)
}

// TestFixtureLiteralsAreExhaustive: every Profile and Capabilities literal
// of enginetest names every field, so a new field forces a decision there.
func TestFixtureLiteralsAreExhaustive(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "enginetest/enginetest.go", nil, 0)
	require.NoError(t, err)
	want := map[string][]string{
		"Profile":      fieldNames(engine.Profile{}),
		"Capabilities": fieldNames(engine.Capabilities{}),
	}
	seen := map[string]int{}
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		sel, ok := lit.Type.(*ast.SelectorExpr)
		if !ok || want[sel.Sel.Name] == nil {
			return true
		}
		seen[sel.Sel.Name]++
		var keys []string
		for _, e := range lit.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				keys = append(keys, kv.Key.(*ast.Ident).Name)
			}
		}
		for _, name := range want[sel.Sel.Name] {
			if !slices.Contains(keys, name) {
				require.Fail(t, fmt.Sprintf("%s: engine.%s literal does not decide field %s", fset.Position(lit.Pos()), sel.Sel.Name, name))
			}
		}
		return true
	})
	require.Truef(t, seen["Profile"] >= 2, "fixture literals not found: %v", seen)
	require.Truef(t, seen["Capabilities"] >= 2, "fixture literals not found: %v", seen)
}
