package api

import (
	"fmt"
	"testing"
)

func TestTurnTimesKeepTheLatestAndEvictTheOldest(t *testing.T) {
	var c turnTimes
	for i := range turnTimesMax {
		c.put(fmt.Sprintf("t-%d", i), int64(i))
	}
	c.put("t-0", 99) // already there: kept as it was, nothing evicted
	if at, ok := c.get("t-0"); !ok || at != 0 {
		t.Fatalf("t-0: %d %v", at, ok)
	}
	c.put("t-new", 7)
	if _, ok := c.get("t-0"); ok {
		t.Fatal("the oldest entry was not evicted")
	}
	if at, ok := c.get("t-new"); !ok || at != 7 {
		t.Fatalf("t-new: %d %v", at, ok)
	}
	if at, ok := c.get("t-1"); !ok || at != 1 {
		t.Fatalf("t-1: %d %v", at, ok)
	}
	if len(c.at) != turnTimesMax || len(c.ring) != turnTimesMax {
		t.Fatalf("%d entries, ring %d", len(c.at), len(c.ring))
	}
}
