package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBadFlagsExitTwoWithANamedError(t *testing.T) {
	caseFile := filepath.Join(t.TempDir(), "case.json")
	if code, _, _ := (cli{t: t}).run("replay", "-seed", "2", "-save", caseFile, "-tail", "0"); code == exitUsage {
		t.Fatal("saving a case failed")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "usage: turnstile <command>"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"sim", "-shard", "2/2"}, "shard index out of range: 2/2"},
		{[]string{"sim", "-shard", "0/0"}, "shard index out of range"},
		{[]string{"sim", "-shard", "one/two"}, `shard must be i/n: "one/two"`},
		{[]string{"sim", "-seeds", "0"}, "seed count must be at least 1"},
		{[]string{"sim", "-faults", "meteor"}, `unknown fault kind "meteor"; valid kinds: `},
		{[]string{"sim", "-faults", "stall,meteor"}, "conn_loss"},
		{[]string{"sim", "-devices", "5"}, "-devices must be 0 (drawn from the seed) or 1 to 4: 5"},
		{[]string{"sim", "-turns", "-1"}, "-turns must not be negative"},
		{[]string{"sim", "-workers", "-2"}, "-workers must not be negative"},
		{[]string{"sim", "-seed", "3", "-seeds", "4"}, "-seed runs one seed: drop -seeds, -first and -shard"},
		{[]string{"sim", "-seed", "3", "-first", "4"}, "-seed runs one seed"},
		{[]string{"sim", "-seed", "3", "-shard", "1/2"}, "-seed runs one seed"},
		{[]string{"sim", "-seeds", "x"}, `invalid value "x" for flag -seeds`},
		{[]string{"sim", "-bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"sim", "extra"}, "unexpected arguments: [extra]"},
		{[]string{"replay"}, "-seed or -schedule is required"},
		{[]string{"replay", "-seed", "1", "-schedule", caseFile}, "-seed and -schedule are exclusive"},
		{[]string{"replay", "-schedule", caseFile, "-devices", "2"}, "a case file carries its own configuration"},
		{[]string{"replay", "-seed", "1", "-faults", "nope"}, `unknown fault kind "nope"`},
		{[]string{"shrink", "-devices", "9", "-seed", "1"}, "-devices must be 0"},
		{[]string{"shrink"}, "-seed or -schedule is required"},
		{[]string{"campaign"}, "usage: turnstile campaign merge [-strict] FILES..."},
		{[]string{"campaign", "split"}, "usage: turnstile campaign merge [-strict] FILES..."},
		{[]string{"sim", "-faults", ""}, "-faults is empty"},
		{[]string{"sim", "-faults", "stall,,slow"}, "empty kind"},
		{[]string{"campaign", "merge"}, "no shard files given"},
		{[]string{"core", "-body-read-timeout", "0s"}, "-body-read-timeout must be a positive duration"},
		{[]string{"core", "-conns-per-addr", "0"}, "-conns-per-addr must be at least 1"},
		{[]string{"core", "-lease-ttl", "999ms"}, "-lease-ttl must be at least 1s"},
	} {
		code, out, errOut := cli{t: t}.run(tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) || out != "" {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant exit 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "-h"}, "usage: turnstile sim [-seeds N] [-first F | -seed S] [-duration D] [-until-fail]"},
		{[]string{"version", "-h"}, "usage: turnstile version"},
		{[]string{"replay", "-h"}, "usage: turnstile replay (-seed S"},
		{[]string{"shrink", "-help"}, "usage: turnstile shrink (-seed S"},
		{[]string{"campaign", "merge", "-h"}, "usage: turnstile campaign merge [-strict] FILES..."},
	} {
		code, _, errOut := cli{t: t}.run(tc.args...)
		if code != exitOK || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "flags:\n") {
			t.Errorf("%v: exit %d\n%s", tc.args, code, errOut)
		}
	}
	code, out, _ := cli{t: t}.run("-h")
	if code != exitOK || !strings.Contains(out, "campaign merge") {
		t.Fatalf("turnstile -h: exit %d\n%s", code, out)
	}
	_, _, errOut := cli{t: t}.run("sim", "-h")
	for _, k := range worldKinds() {
		if !strings.Contains(errOut, string(k)) {
			t.Errorf("sim -h does not list fault kind %s", k)
		}
	}
}

func TestSimOutWritesTheSummary(t *testing.T) {
	dir := t.TempDir()
	_, out, _ := cli{t: t}.run("sim", "-seeds", "2", "-faults", "none", "-out", dir)
	b, err := os.ReadFile(filepath.Join(dir, "summary.txt"))
	head := "command: turnstile sim -seeds 2 -faults none -out " + dir + "\ncommit:  test-commit\n\n"
	if err != nil || string(b) != head+summaryBlock(t, out) {
		t.Fatalf("summary.txt must be the command line, the commit and the summary; %v:\n%s", err, b)
	}
}

// TestExitCodeTable: every command's help prints the one exit code table,
// and each code of it is what the situation it names returns.
func TestExitCodeTable(t *testing.T) {
	for _, args := range [][]string{{"sim", "-h"}, {"replay", "-h"}, {"shrink", "-h"}, {"campaign", "merge", "-h"},
		{"core", "-h"}, {"core", "device", "list", "-h"}, {"core", "key", "list", "-h"}, {"daemon", "-h"}, {"conform", "core", "-h"},
		{"conform", "runtime", "-h"}, {"version", "-h"}} {
		code, out, errOut := cli{t: t}.run(args...)
		if code != exitOK || !strings.Contains(out+errOut, exitCodes) {
			t.Errorf("%v: exit %d, the help lacks the exit code table:\n%s%s", args, code, out, errOut)
		}
	}
	if _, out, _ := (cli{t: t}).run("-h"); !strings.Contains(out, exitCodes) {
		t.Errorf("turnstile -h lacks the exit code table:\n%s", out)
	}
	dir := t.TempDir()
	shard := writeShard(t, dir, "shard.jsonl", "-seeds", "2", "-first", "1")
	b, err := os.ReadFile(shard)
	if err != nil {
		t.Fatal(err)
	}
	hdr, _, _ := strings.Cut(string(b), "\n")
	headerOnly := filepath.Join(dir, "header-only.jsonl")
	if err := os.WriteFile(headerOnly, []byte(hdr+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		code int
		cli  cli
		args []string
	}{
		{exitOK, fakeCLI(t, fakeRunner{}), []string{"sim", "-seeds", "3", "-first", "1"}},
		{exitFail, fakeCLI(t, fakeRunner{failSeed: 2}), []string{"sim", "-seeds", "3", "-first", "1"}},
		{exitUsage, cli{t: t}, []string{"sim", "-seeds", "x"}},
		{exitTool, cli{t: t}, []string{"campaign", "merge", filepath.Join(dir, "absent.jsonl")}},
		{exitVacuous, cli{t: t}, []string{"campaign", "merge", headerOnly}},
		{exitNoStore, cli{t: t}, []string{"core", "device", "list", "-data", filepath.Join(dir, "no-such-data")}},
	} {
		code, out, errOut := c.cli.run(c.args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d\n%s%s", c.args, code, c.code, out, errOut)
		}
	}
	distinct := map[int]bool{exitOK: true, exitFail: true, exitUsage: true, exitTool: true, exitVacuous: true, exitNoStore: true}
	if len(distinct) != 6 {
		t.Fatal("the exit codes are not distinct")
	}
}
