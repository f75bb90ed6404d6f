package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/scenarios"
)

// TestCoreKinds: Core enables the real Harnesses by default (the synthetic
// test fixture only when listed), a profile file's kinds with them, and
// refuses what it cannot qualify, by name.
func TestCoreKinds(t *testing.T) {
	dir := t.TempDir()
	contract := filepath.Join(dir, "contract.json")
	if err := os.WriteFile(contract, scenarios.ContractProfile(), 0o644); err != nil {
		t.Fatal(err)
	}
	codexFile := filepath.Join(dir, "codex.json")
	if err := os.WriteFile(codexFile, []byte(strings.Replace(string(scenarios.ContractProfile()), `"contract"`, `"codex"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(strings.Replace(string(scenarios.ContractProfile()), `"subagents": true,`, "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	real := []string{"acp:claude-agent-acp", "acp:mcode", "claude", "codex"}
	for _, c := range []struct {
		name, kinds, file string
		want              []string
		err               error
		text              string
	}{
		{"default: the real Harnesses", "", "", real, nil, ""},
		{"default with a profile file", "", contract, append(slices.Clone(real[:3]), "codex", "contract", "contract-no-images"), nil, ""},
		{"synthetic on request", "synthetic", "", []string{"synthetic"}, nil, ""},
		{"listed", " codex ,synthetic,contract", contract, []string{"codex", "contract", "synthetic"}, nil, ""},
		{"file kind needs its file", "contract", "", nil, ErrCoreKinds, `"contract"`},
		{"unknown kind", "codex,nonesuch", "", nil, ErrCoreKinds, `"nonesuch"`},
		{"blank entry", "codex,,claude", "", nil, ErrCoreKinds, `""`},
		{"twice", "codex,codex", "", nil, ErrCoreKinds, `"codex"`},
		{"missing file", "", filepath.Join(dir, "none.json"), nil, ErrEngineProfiles, "no such file"},
		{"operation not named", "", bad, nil, engine.ErrProfileFile, "capabilities.subagents: missing"},
		{"built-in kind redefined", "", codexFile, nil, ErrEngineProfiles, `kind "codex" is built in`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, kinds, err := corePolicy(c.kinds, c.file)
			if c.err != nil {
				if !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.text) {
					t.Fatalf("err %v, want %v naming %s", err, c.err, c.text)
				}
				return
			}
			if err != nil || !slices.Equal(kinds, c.want) || !slices.Equal(p.Catalog().Kinds(), c.want) {
				t.Fatalf("kinds %v (catalog %v), err %v; want %v", kinds, p.Catalog().Kinds(), err, c.want)
			}
			if _, ok := p.Profile("synthetic"); ok != slices.Contains(c.want, "synthetic") {
				t.Fatalf("synthetic qualified: %v", ok)
			}
		})
	}
}

// TestCoreKindsFlag: turnstile core refuses a bad -kinds or
// -engine-profiles (and reads TURNSTILE_KINDS) before it opens a store.
func TestCoreKindsFlag(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("operator-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := cli{t: t}.run("core", "-operator-token-file", tokenFile, "-kinds", "synthetic,nonesuch")
	if code != exitUsage || !strings.Contains(errOut, `"nonesuch"`) {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	t.Setenv("TURNSTILE_KINDS", "contract")
	code, _, errOut = cli{t: t}.run("core", "-operator-token-file", tokenFile)
	if code != exitUsage || !strings.Contains(errOut, ErrCoreKinds.Error()) {
		t.Fatalf("TURNSTILE_KINDS was not read: exit %d: %s", code, errOut)
	}
	code, _, errOut = cli{t: t}.run("core", "-operator-token-file", tokenFile, "-kinds", "codex", "-engine-profiles", tokenFile)
	if code != exitUsage || !strings.Contains(errOut, "invalid profile file") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, out, _ := cli{t: t}.run("conform", "profile")
	if _, err := engine.ParseProfiles([]byte(out)); code != exitOK || err != nil {
		t.Fatalf("conform profile: exit %d, %v:\n%s", code, err, out)
	}
}
