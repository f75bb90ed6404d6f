package world

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/sim"
)

func TestDbg(t *testing.T) {
	seed, _ := strconv.Atoi(os.Getenv("SEED"))
	grep := os.Getenv("GREP")
	opts := Options(Config{})
	opts.KeepTrace = true
	var u *universe
	opts.Setup = func(w *sim.World) { u = setup(w, Config{}, false) }
	r := sim.Run(uint64(seed), opts)
	for _, l := range r.Trace {
		if grep == "" || strings.Contains(l, grep) || strings.Contains(l, "!!") {
			t.Log(l)
		}
	}
	for _, s := range u.led.Reads() {
		if strings.Contains(grep, s.Turn+" ") {
			t.Logf("read %+v", s)
		}
	}
	for _, s := range u.led.Steers() {
		t.Logf("steer %+v", s)
	}
	t.Log(r.Violations, u.nativeOutcome)
}
