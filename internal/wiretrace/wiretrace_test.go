package wiretrace

import (
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

const stamp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

// TestStampedTraceNeverPushesAFrameOverTheLimit: a frame that fits
// FrameBytesMax only without the stamped traceparent leaves without it;
// one that fits with it carries it.
func TestStampedTraceNeverPushesAFrameOverTheLimit(t *testing.T) {
	f := wire.Frame{ID: "t-1", Payload: wire.Delta{Sequence: 1}}
	base, err := wire.Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	f.Payload = wire.Delta{Sequence: 1, Delta: strings.Repeat("a", wire.FrameBytesMax-len(base)-20)}
	f.Trace = stamp
	if _, err := wire.Encode(f); err == nil {
		t.Fatal("the fixture fits with its trace")
	}
	b, err := Encode(f, "")
	if err != nil || len(b) > wire.FrameBytesMax || strings.Contains(string(b), `"trace"`) {
		t.Fatalf("near the limit: %d bytes, err %v, trace kept %v", len(b), err, strings.Contains(string(b), `"trace"`))
	}
	f.Payload = wire.Delta{Sequence: 1, Delta: "small"}
	if b, err := Encode(f, ""); err != nil || !strings.Contains(string(b), `"trace":"`+stamp+`"`) {
		t.Fatalf("a small frame: %s, %v", b, err)
	}
}

// TestTraceparentRoundTrips: Parse reads back what Format wrote, as a
// remote context with its sampled flag; unusable values are refused.
func TestTraceparentRoundTrips(t *testing.T) {
	sc, ok := Parse(stamp)
	if !ok || !sc.IsRemote() || !sc.IsSampled() {
		t.Fatalf("Parse(%q) = %v, %v", stamp, sc, ok)
	}
	if got := Format(sc); got != stamp {
		t.Fatalf("Format = %q, want %q", got, stamp)
	}
	unsampled := strings.TrimSuffix(stamp, "01") + "00"
	if sc, ok := Parse(unsampled); !ok || sc.IsSampled() {
		t.Fatalf("Parse(%q) sampled %v, ok %v", unsampled, sc.IsSampled(), ok)
	}
	for _, bad := range []string{"", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "01-" + stamp[3:], stamp + "-x", strings.ToUpper(stamp)} {
		if _, ok := Parse(bad); ok {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
	if got := Format(sc.WithTraceID([16]byte{})); got != "" {
		t.Fatalf("an invalid context formats as %q", got)
	}
}
