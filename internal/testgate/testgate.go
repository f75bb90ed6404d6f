// Package testgate sorts the module's tests into the Makefile's three test
// loops.
//
//   - `make quick` (go test -short ./...): the inner loop; Long tests and
//     Campaign tests are skipped;
//   - `make test` (what CI runs): every test but the Campaign tests;
//   - `make campaign-checks` (CI runs it after `make test`): the Campaign
//     tests, opted into with TURNSTILE_CAMPAIGN=1, one `go test -v -run`
//     invocation per piece.
//
// A skipped test says which target runs it, so no check is dropped
// silently.
package testgate

import (
	"fmt"
	"os"
	"testing"
)

// EnvCampaign is the environment variable that opts into the
// campaign-scale tests: "1" runs them, "" or "0" skips them.
const EnvCampaign = "TURNSTILE_CAMPAIGN"

// Long skips t under -short: the test takes seconds of CPU (real
// processes, compiled test binaries, hundreds of seeds), and `make test`
// runs it.
func Long(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("long test, skipped under -short: `make test` runs it")
	}
}

// Campaign skips t unless TURNSTILE_CAMPAIGN=1: the test runs a campaign
// of thousands of seeds, and `make campaign-checks` runs it. Any other
// value of the variable fails t.
func Campaign(t testing.TB) {
	t.Helper()
	on, err := CampaignEnabled()
	if err != nil {
		t.Fatal(err)
	}
	if !on {
		t.Skip("campaign-scale test, skipped unless " + EnvCampaign + "=1: `make campaign-checks` runs it")
	}
}

// CampaignEnabled reports whether TURNSTILE_CAMPAIGN opts into the
// campaign-scale tests; a value other than "", "0" and "1" is an error.
func CampaignEnabled() (bool, error) {
	switch v := os.Getenv(EnvCampaign); v {
	case "", "0":
		return false, nil
	case "1":
		return true, nil
	default:
		return false, fmt.Errorf("testgate: %s=%q: want 1 (run the campaign-scale tests) or 0", EnvCampaign, v)
	}
}

// Progress logs "done of total seeds" through t every step seeds, so a
// long test run with -v is never silent for long. It is safe for
// concurrent use when t is.
func Progress(t testing.TB, what string, done, total, step int) {
	t.Helper()
	if step > 0 && done > 0 && (done%step == 0 || done == total) {
		t.Logf("%s: %d of %d seeds", what, done, total)
	}
}
