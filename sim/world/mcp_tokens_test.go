package world

import (
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/sim"
)

func TestTokenInFindsTheFirstDrawnToken(t *testing.T) {
	a := tokenPrefix + strings.Repeat("a", 32)
	b := tokenPrefix + strings.Repeat("b", 32)
	odd := "bearer-" + strings.Repeat("c", 32) // not drawn by drawMCP: still found
	for _, tc := range []struct {
		line   string
		tokens []string
		want   int
	}{
		{"no tokens drawn " + a, nil, -1},
		{`{"bearer_token":"` + b + `"}`, []string{a, b}, 1},
		{b + " then " + a, []string{a, b}, 0},
		{"a prefix alone: " + tokenPrefix + "aaaa", []string{a, b}, -1},
		{"nothing here", []string{a, b}, -1},
		{"the odd one " + odd, []string{a, odd}, 1},
		{"neither " + tokenPrefix, []string{odd}, -1},
	} {
		if got := tokenIn([]byte(tc.line), tc.tokens); got != tc.want {
			t.Errorf("tokenIn(%q, %d tokens) = %d, want %d", tc.line, len(tc.tokens), got, tc.want)
		}
	}
}

// TestDrawnTokensCarryThePrefix: tokenIn passes over a line without
// tokenPrefix only because every token the workload draws begins with it.
func TestDrawnTokensCarryThePrefix(t *testing.T) {
	drawn := 0
	for seed := uint64(1); seed <= 20; seed++ {
		var u *universe
		opts := Options(Config{})
		opts.Setup = func(w *sim.Kernel) { u = setup(w, Config{}, false) }
		sim.Run(seed, opts)
		for _, tok := range u.wl.mcpTokens() {
			drawn++
			if !strings.HasPrefix(tok, tokenPrefix) {
				t.Fatalf("seed %d drew token %q without %q", seed, tok, tokenPrefix)
			}
		}
	}
	if drawn == 0 {
		t.Fatal("20 seeds drew no MCP token")
	}
}

func TestIndexTokenPrefixIsBytesIndex(t *testing.T) {
	lines := []string{"", "k", "simtok", "simtok-", "xsimtok-", "simto-k-simtok-abc", "kkkk simtok simtok-",
		"0.001 kernel !! fault stall k- ok-", "sim tok-", "simtok-" + strings.Repeat("k", 40), "ksimtok-k"}
	for _, l := range lines {
		if got, want := indexTokenPrefix([]byte(l)), strings.Index(l, tokenPrefix); got != want {
			t.Errorf("indexTokenPrefix(%q) = %d, want %d", l, got, want)
		}
	}
	if tokenPrefix[len(tokenPrefix)-2] != 'k' {
		t.Fatalf("indexTokenPrefix looks for the 'k' of %q", tokenPrefix)
	}
}
