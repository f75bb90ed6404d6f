package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/turnstile-sim/turnstile/sim/campaign"
	"github.com/turnstile-sim/turnstile/sim/world"
)

const usageCampaign = `usage: turnstile campaign merge [-strict] FILES...

Combines the JSON-lines output of 'turnstile sim -json' shards into one
campaign summary. Seeds reported twice are counted once; planned seeds with
no report are listed (a shard file whose last line was cut off loses that
seed, with a warning). Shards that ran on different commits are merged with
a warning. Exits 1 when a seed failed, an expected mark was never hit (1000
seeds or more, swarm faults only), seeds are missing, a seed was reported
with two different fingerprints, or, with -strict, a linearizability check
was unknown. Exits 2 when the shard headers disagree on the campaign (first
seed, seed count, devices, turns or faults): such files are not merged.
Exits 3 when a file cannot be read, is empty, or has a line that does not
decode (named file:line; only a last line cut off mid-write, without its
newline, is tolerated). Exits 4 when the files hold no seed at all: a merge
that checked nothing is never a pass.

` + exitCodes

func (sh *shell) cmdCampaign(args []string) int {
	if len(args) == 0 || args[0] != "merge" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			fmt.Fprint(sh.stdout, usageCampaign)
			return exitOK
		}
		fmt.Fprint(sh.stderr, usageCampaign)
		return exitUsage
	}
	fs := sh.newFlags("campaign merge", usageCampaign)
	strict := fs.Bool("strict", false, "fail when a seed's linearizability check is unknown (timed out)")
	if code, ok := sh.parse(fs, args[1:]); !ok {
		return code
	}
	if fs.NArg() == 0 {
		return sh.usageError("campaign merge", ErrNoFiles)
	}
	m := campaign.NewMerger()
	m.MarkNeeds = world.MarkNeeds
	for _, name := range fs.Args() {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(sh.stderr, "turnstile campaign merge: %v\n", err)
			return exitTool
		}
		err = m.Read(name, f)
		f.Close()
		if err != nil {
			fmt.Fprintf(sh.stderr, "turnstile campaign merge: %v\n", err)
			if errors.Is(err, campaign.ErrShardMismatch) {
				return exitUsage
			}
			return exitTool
		}
	}
	res := m.Result()
	res.Summary.Strict = *strict
	if err := res.Err(); errors.Is(err, campaign.ErrNoSeeds) {
		fmt.Fprintf(sh.stderr, "turnstile campaign merge: %v (%d files, %d shard headers)\n",
			err, fs.NArg(), len(res.Headers))
		return exitVacuous
	}
	res.Write(sh.stdout)
	if res.Err() != nil {
		return exitFail
	}
	return exitOK
}
