package core_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// require is a small assertion helper: every check stops the test.
var require requireT

type requireT struct{}

func msg(args []any) string {
	if len(args) == 0 {
		return ""
	}
	if f, ok := args[0].(string); ok {
		return ": " + fmt.Sprintf(f, args[1:]...)
	}
	return ": " + fmt.Sprint(args...)
}

func (requireT) Equal(t testing.TB, want, got any, args ...any) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("want %#v, got %#v%s", want, got, msg(args))
	}
}

func (requireT) EqualValues(t testing.TB, want, got any, args ...any) {
	t.Helper()
	if fmt.Sprint(want) != fmt.Sprint(got) {
		t.Fatalf("want %v, got %v%s", want, got, msg(args))
	}
}

func (requireT) NotEqual(t testing.TB, a, b any, args ...any) {
	t.Helper()
	if reflect.DeepEqual(a, b) {
		t.Fatalf("unexpectedly equal: %#v%s", a, msg(args))
	}
}

func (requireT) True(t testing.TB, v bool, args ...any) {
	t.Helper()
	if !v {
		t.Fatalf("expected true%s", msg(args))
	}
}

func (requireT) False(t testing.TB, v bool, args ...any) {
	t.Helper()
	if v {
		t.Fatalf("expected false%s", msg(args))
	}
}

func (requireT) NoError(t testing.TB, err error, args ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error %v%s", err, msg(args))
	}
}

func (requireT) ErrorIs(t testing.TB, err, target error, args ...any) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("want error %v, got %v%s", target, err, msg(args))
	}
}

func (requireT) Len(t testing.TB, v any, n int, args ...any) {
	t.Helper()
	if l := reflect.ValueOf(v).Len(); l != n {
		t.Fatalf("want length %d, got %d%s", n, l, msg(args))
	}
}

func (requireT) Empty(t testing.TB, v any, args ...any) {
	t.Helper()
	if l := reflect.ValueOf(v).Len(); l != 0 {
		t.Fatalf("want empty, got %d items: %v%s", l, v, msg(args))
	}
}

func (requireT) Panics(t testing.TB, f func(), args ...any) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Fatalf("expected a panic%s", msg(args))
		}
	}()
	f()
}
