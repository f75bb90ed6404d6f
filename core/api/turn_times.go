package api

import "sync"

// turnTimesMax bounds the creation times turnTimes keeps in memory.
const turnTimesMax = 4096

// turnTimes keeps the creation times of the latest Turns /v1 recorded or
// read, so that the streams, retrieves and lists of a live Session read
// them from memory, not from the resource store. A Turn's record is
// written once and never changes, so a cached time is never stale; the
// oldest entry makes room for a new one.
type turnTimes struct {
	mu   sync.Mutex
	at   map[string]int64
	ring []string // the IDs in at, oldest at next once full
	next int
}

func (c *turnTimes) get(tid string) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.at[tid]
	return at, ok
}

func (c *turnTimes) put(tid string, at int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at == nil {
		c.at = map[string]int64{}
	}
	if _, ok := c.at[tid]; ok {
		return
	}
	if len(c.ring) < turnTimesMax {
		c.ring = append(c.ring, tid)
	} else {
		delete(c.at, c.ring[c.next])
		c.ring[c.next] = tid
		c.next = (c.next + 1) % turnTimesMax
	}
	c.at[tid] = at
}
