package invariant

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestThatHoldsQuietly(t *testing.T) {
	require.NotPanics(t, func() { Scope("x: ").That(true, "never %d", 1) })
}

func TestThatPanicsWithScopeAndMessage(t *testing.T) {
	require.PanicsWithValue(t, "core: assertion failed: 3 over 2",
		func() { Scope("core: assertion failed: ").That(false, "%d over %d", 3, 2) })
}

func TestThatWithoutArgumentsKeepsPercent(t *testing.T) {
	require.PanicsWithValue(t, "sim: assertion failed: 100% full",
		func() { Scope("sim: assertion failed: ").That(false, "100%% full") })
}

func TestFailfIsThatFailing(t *testing.T) {
	require.PanicsWithValue(t, "sim: assertion failed: empty range [3, 2]",
		func() { Scope("sim: assertion failed: ").Failf("empty range [%d, %d]", 3, 2) })
}

func TestEmptyScopeIsTheMessageAlone(t *testing.T) {
	require.PanicsWithValue(t, "wire: type \"a\" registered twice",
		func() { Scope("").That(false, "wire: type %q registered twice", "a") })
}
