package main

import (
	"fmt"
	"os"

	"github.com/turnstile-sim/turnstile/sim/campaign"
)

const usageCampaign = `usage: turnstile campaign merge FILES...

Combines the JSON-lines output of 'turnstile sim -json' shards into one
campaign summary. Seeds reported twice are counted once; planned seeds with
no report are listed. Exits 1 when a seed failed, an expected mark was never
hit (1000 seeds or more), seeds are missing, or a seed was reported with two
different fingerprints.
`

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
	if code, ok := sh.parse(fs, args[1:]); !ok {
		return code
	}
	if fs.NArg() == 0 {
		return sh.usageError("campaign merge", ErrNoFiles)
	}
	m := campaign.NewMerger()
	for _, name := range fs.Args() {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(sh.stderr, "turnstile campaign merge: %v\n", err)
			return exitFail
		}
		err = m.Read(name, f)
		f.Close()
		if err != nil {
			fmt.Fprintf(sh.stderr, "turnstile campaign merge: %v\n", err)
			return exitFail
		}
	}
	res := m.Result()
	res.Write(sh.stdout)
	if res.Err() != nil {
		return exitFail
	}
	return exitOK
}
