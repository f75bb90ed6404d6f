package main

import (
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

// templateVars stands in for what the CI system or the Job fills in.
var templateVars = strings.NewReplacer(
	`${{ needs.plan.outputs.first }}`, "123456789", `${{ matrix.shard }}`, "3", "$JOB_COMPLETION_INDEX", "3",
	"$SEEDS", "20000", "$SHARDS", "8", "$FIRST", "123456789", "$GITHUB_SHA", "abc", "$GIT_SHA", "abc", `"`, "")

// simInvocation returns the arguments of the `turnstile sim` command in a
// template: continuation lines joined, variables filled in, up to the
// output redirection.
func simInvocation(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := regexp.MustCompile(`\\\n\s*`).ReplaceAllString(string(b), " ")
	text = regexp.MustCompile(`\n\s+-(commit|json)`).ReplaceAllString(text, " -$1") // folded YAML lines
	m := regexp.MustCompile(`turnstile sim ([^>\n]*)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("%s runs no turnstile sim", path)
	}
	return strings.Fields(templateVars.Replace(m[1]))
}

// TestTemplatesRunFreshShardedRanges checks that each campaign template's
// sim command parses with today's flags, is sharded, and passes a first
// seed that the template draws fresh per run.
func TestTemplatesRunFreshShardedRanges(t *testing.T) {
	for path, fresh := range map[string]string{
		"../../deploy/github-actions/sim-campaign.yml":  "/dev/urandom",
		"../../deploy/kubernetes/sim-campaign-job.yaml": "controller-uid",
	} {
		args := simInvocation(t, path)
		sh := newShell(io.Discard, io.Discard)
		f, code, ok := sh.parseSim(args)
		if !ok {
			t.Errorf("%s: sim %v does not parse (exit %d)", path, args, code)
			continue
		}
		if f.fresh || f.plan.First != 123456789 || f.plan.Shard.Count != 8 || !f.json {
			t.Errorf("%s: sim %v: every shard must run the template's one first seed, sharded, as JSON: %+v",
				path, args, f.plan)
		}
		b, _ := os.ReadFile(path)
		if !strings.Contains(string(b), fresh) {
			t.Errorf("%s: the first seed must be drawn fresh per run (from %s)", path, fresh)
		}
	}
}
