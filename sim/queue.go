package sim

import "fmt"

// itemKind says what a queued item does when it is popped.
type itemKind uint8

const (
	itemEvent      itemKind = iota + 1 // hand ev to node (start, call, reply, injected)
	itemTimer                          // fire timer if its generation is current
	itemFrame                          // deliver frame on conn from end dir
	itemOpened                         // ConnOpened at end dir
	itemClosed                         // ConnClosed at end dir with reason
	itemDialFailed                     // DialFailed at node
	itemFunc                           // run a kernel or caller callback
)

// item is one scheduled occurrence. Items are ordered by (at, seq): seq is a
// global counter, so two items at the same instant run in scheduling order
// and no map or pointer order can leak in.
type item struct {
	at     int64 // nanoseconds since Epoch
	seq    uint64
	kind   itemKind
	dir    uint8 // for conn items: the end concerned
	forged bool  // for frames: put on the wire by a proxy
	node   int32 // target slot
	inc    uint32
	gen    uint64
	conn   *conn
	ev     Event
	frame  []byte
	text   string
	fn     func()
	timer  TimerID
	reason string
}

// queue is a bounded binary min-heap of items. The heap orders small
// pointer-free keys; the items themselves stay put in slots (reused once
// popped), so sifting moves 24 bytes per level and no pointers.
type queue struct {
	keys  []queueKey
	slots []item
	free  []int32 // slots popped and cleared, for reuse
	seq   uint64
	max   int
	peak  int
}

// queueKey is an item's place in the order and the slot that holds it.
type queueKey struct {
	at   int64
	seq  uint64
	slot int32
}

func newQueue(max int) queue {
	assert.That(max > 0, "queue max must be positive")
	n := min(max, 64)
	return queue{keys: make([]queueKey, 0, n), slots: make([]item, 0, n), max: max}
}

func (q *queue) len() int { return len(q.keys) }

func less(a, b queueKey) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// push schedules it; the sequence number is assigned here.
func (q *queue) push(it item) {
	if len(q.keys) >= q.max {
		panic(fmt.Sprintf("sim: event queue full (%d items): a node or fault "+
			"schedules without bound, or Options.QueueMax is too small", q.max))
	}
	q.seq++
	it.seq = q.seq
	var slot int32
	if n := len(q.free); n > 0 {
		slot = q.free[n-1]
		q.free = q.free[:n-1]
		q.slots[slot] = it
	} else {
		slot = int32(len(q.slots))
		q.slots = append(q.slots, it)
	}
	k := queueKey{at: it.at, seq: it.seq, slot: slot}
	q.keys = append(q.keys, k)
	keys := q.keys
	i := len(keys) - 1
	for i > 0 { // the hole moves up; k is written once, where it stops
		p := (i - 1) / 2
		if !less(k, keys[p]) {
			break
		}
		keys[i] = keys[p]
		i = p
	}
	keys[i] = k
	q.peak = max(q.peak, len(q.keys))
}

// peekAt returns the instant of the earliest item; the queue must be non-empty.
func (q *queue) peekAt() int64 {
	assert.That(len(q.keys) > 0, "peek on empty queue")
	return q.keys[0].at
}

// pop removes and returns the earliest item.
func (q *queue) pop() item {
	assert.That(len(q.keys) > 0, "pop on empty queue")
	slot := q.keys[0].slot
	top := q.slots[slot]
	assert.That(top.seq == q.keys[0].seq, "queue slot holds another item")
	q.slots[slot] = item{} // drops its references; the slot is reused
	q.free = append(q.free, slot)
	last := len(q.keys) - 1
	k := q.keys[last]
	keys := q.keys[:last]
	q.keys = keys
	if last == 0 {
		return top
	}
	i := 0
	for { // the hole moves down from the root; k is written where it stops
		m := 2*i + 1
		if m >= len(keys) {
			break
		}
		if r := m + 1; r < len(keys) && less(keys[r], keys[m]) {
			m = r
		}
		if !less(keys[m], k) {
			break
		}
		keys[i] = keys[m]
		i = m
	}
	keys[i] = k
	return top
}
