package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/internal/testgate"
	"github.com/turnstile-sim/turnstile/sim/campaign"
)

// shardFiles runs sim -json for each shard and returns the files.
func shardFiles(t *testing.T, seeds string, shards ...string) []string {
	t.Helper()
	dir := t.TempDir()
	var files []string
	for i, sh := range shards {
		_, out, _ := cli{t: t}.run("sim", "-seeds", seeds, "-first", "1", "-shard", sh, "-json")
		f := filepath.Join(dir, "shard-"+string(rune('a'+i))+".jsonl")
		if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

func TestMergeOfTwoShardsEqualsUnshardedCampaign(t *testing.T) {
	testgate.Long(t)
	wholeCode, _, wholeErr := cli{t: t}.run("sim", "-seeds", "9", "-json")
	files := shardFiles(t, "9", "0/2", "1/2")
	code, out, _ := cli{t: t}.run(append([]string{"campaign", "merge"}, files...)...)
	if got, want := summaryBlock(t, out), summaryBlock(t, wholeErr); got != want {
		t.Fatalf("merged summary:\n%s\nunsharded summary:\n%s", got, want)
	}
	if code != wholeCode || !strings.HasPrefix(out, "merged 2 shard headers, 9 seeds\n") {
		t.Fatalf("merge exit %d, campaign exit %d\n%s", code, wholeCode, out)
	}
}

func TestMergeReportsMissingAndDuplicateSeeds(t *testing.T) {
	files := shardFiles(t, "6", "1/3")
	code, out, _ := cli{t: t}.run("campaign", "merge", files[0], files[0])
	for _, want := range []string{"4 seeds missing: shards 0/3 2/3 absent?", "duplicate seeds (identical, counted once): 2: 2 5",
		"4 planned seeds missing"} {
		if !strings.Contains(out, want) {
			t.Errorf("merge output lacks %q:\n%s", want, out)
		}
	}
	if code != exitFail {
		t.Fatalf("an incomplete campaign must fail, exit %d", code)
	}
}

func TestMergeUnreadableInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"seed\":1}\nnot json\n{\"seed\":2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := cli{t: t}.run("campaign", "merge", bad)
	if code != exitTool || !strings.Contains(errOut, "bad.jsonl:2: "+campaign.ErrShardLine.Error()) {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, _, errOut = cli{t: t}.run("campaign", "merge", filepath.Join(t.TempDir(), "absent.jsonl"))
	if code != exitTool || !strings.Contains(errOut, "absent.jsonl") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// A merge of empty or garbage files, or of shards that hold no seed,
// checked nothing: it never prints PASS nor exits 0. Garbage and empty
// files are bad input (exit 3, naming file and line); readable shards
// without a seed are vacuous (exit 4).
func TestMergeOfNothingIsNotAPass(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	shard := writeShard(t, dir, "good.jsonl", "-seeds", "2", "-first", "1")
	hdr, _, _ := strings.Cut(func() string { b, _ := os.ReadFile(shard); return string(b) }(), "\n")
	cases := []struct {
		name  string
		files []string
		code  int
		want  string
	}{
		{"empty file", []string{file("empty.jsonl", "")}, exitTool, "empty.jsonl: " + campaign.ErrShardEmpty.Error()},
		{"blank lines", []string{file("blank.jsonl", "\n\n")}, exitTool, "blank.jsonl: " + campaign.ErrShardEmpty.Error()},
		{"garbage line", []string{file("garbage.jsonl", "garbage\n")}, exitTool,
			"garbage.jsonl:1: " + campaign.ErrShardLine.Error()},
		{"garbage without newline", []string{file("cut.jsonl", "garbage")}, exitTool,
			"cut.jsonl:1: " + campaign.ErrShardLine.Error()},
		{"garbage after a header", []string{file("hdr-garbage.jsonl", hdr+"\n{\"seed\":\n")}, exitTool,
			"hdr-garbage.jsonl:2: " + campaign.ErrShardLine.Error()},
		{"good shard and an empty one", []string{shard, file("empty2.jsonl", "")}, exitTool,
			"empty2.jsonl: " + campaign.ErrShardEmpty.Error()},
		{"header without seeds", []string{file("hdr.jsonl", hdr+"\n")}, exitVacuous, campaign.ErrNoSeeds.Error()},
	}
	for _, c := range cases {
		code, out, errOut := fakeCLI(t, fakeRunner{}).run(append([]string{"campaign", "merge"}, c.files...)...)
		if code != c.code || !strings.Contains(errOut, c.want) || strings.Contains(out, "PASS") {
			t.Errorf("%s: exit %d (want %d), stderr %q (want %q), stdout:\n%s", c.name, code, c.code, errOut, c.want, out)
		}
	}
	code, out, _ := fakeCLI(t, fakeRunner{}).run("campaign", "merge", shard)
	if code != exitOK || !strings.Contains(out, "merged 1 shard headers, 2 seeds") {
		t.Fatalf("a good shard alone merges: exit %d\n%s", code, out)
	}
}

// writeShard runs one fake shard with extra flags and writes its JSON lines.
func writeShard(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	_, out, _ := fakeCLI(t, fakeRunner{}).run(append([]string{"sim", "-json"}, args...)...)
	f := filepath.Join(dir, name)
	if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// campaign merge exits with a usage error on shards of different
// campaigns, naming the file.
func TestMergeRefusesShardsOfDifferentCampaigns(t *testing.T) {
	dir := t.TempDir()
	a := writeShard(t, dir, "a.jsonl", "-seeds", "6", "-first", "1", "-shard", "0/2", "-faults", "none")
	b := writeShard(t, dir, "b.jsonl", "-seeds", "6", "-first", "1", "-shard", "1/2")
	code, out, errOut := fakeCLI(t, fakeRunner{}).run("campaign", "merge", a, b)
	if code != exitUsage || out != "" || !strings.Contains(errOut, "shards are not one campaign: ") ||
		!strings.Contains(errOut, "b.jsonl") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
}

// A truncated last line is reported and its seed counted missing; a merge
// without a shard says the shard may be absent.
func TestMergeToleratesATruncatedLastLine(t *testing.T) {
	dir := t.TempDir()
	a := writeShard(t, dir, "a.jsonl", "-seeds", "6", "-first", "1", "-shard", "0/2")
	b := writeShard(t, dir, "b.jsonl", "-seeds", "6", "-first", "1", "-shard", "1/2")
	data, _ := os.ReadFile(b)
	if err := os.WriteFile(b, data[:len(data)-15], 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := fakeCLI(t, fakeRunner{}).run("campaign", "merge", a, b)
	if code != exitFail || !strings.Contains(out, "b.jsonl:4: truncated last line ignored (its seed counts as missing)") ||
		!strings.Contains(out, "1 seeds missing: 6\n") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	code, out, _ = fakeCLI(t, fakeRunner{}).run("campaign", "merge", a)
	if code != exitFail || !strings.Contains(out, "3 seeds missing: shard 1/2 absent?\n") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}
