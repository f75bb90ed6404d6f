package world

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"
)

func TestSweepDbg(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("N"))
	if n == 0 {
		n = 200
	}
	start := time.Now()
	byCheck := map[string]int{}
	marks := map[string]int{}
	faults := map[string]int{}
	var events uint64
	shown := 0
	lin := map[string]int{}
	for s := 1; s <= n; s++ {
		o := Run(uint64(s), Config{})
		events += o.Result.Stats.Events
		lin[string(o.Lin.Result)]++
		for k, v := range o.Result.Stats.Faults {
			faults[string(k)] += v
		}
		for k := range o.Result.Marks {
			marks[k]++
		}
		if len(o.Result.Violations) > 0 {
			v := o.Result.Violations[0]
			byCheck[v.Check]++
			if shown < 12 {
				shown++
				t.Logf("seed %d: %s", s, v)
			}
		}
	}
	el := time.Since(start)
	t.Logf("seeds=%d wall=%s per=%s events/s=%.0f", n, el, el/time.Duration(n), float64(events)/el.Seconds())
	t.Logf("violations: %v lin=%v", byCheck, lin)
	var ks []string
	for k := range marks {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		t.Logf("mark %s: %d", k, marks[k])
	}
	t.Logf("faults: %v", fmt.Sprint(faults))
}
