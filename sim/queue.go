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

// queue is a bounded binary min-heap of items.
type queue struct {
	items []item
	seq   uint64
	max   int
	peak  int
}

func newQueue(max int) queue {
	assert.That(max > 0, "queue max must be positive")
	return queue{items: make([]item, 0, min(max, 64)), max: max}
}

func (q *queue) len() int { return len(q.items) }

func less(a, b *item) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// push schedules it; the sequence number is assigned here.
func (q *queue) push(it item) {
	if len(q.items) >= q.max {
		panic(fmt.Sprintf("sim: event queue full (%d items): a node or fault "+
			"schedules without bound, or Options.QueueMax is too small", q.max))
	}
	q.seq++
	it.seq = q.seq
	q.items = append(q.items, it)
	i := len(q.items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !less(&q.items[i], &q.items[p]) {
			break
		}
		q.items[i], q.items[p] = q.items[p], q.items[i]
		i = p
	}
	q.peak = max(q.peak, len(q.items))
}

// peekAt returns the instant of the earliest item; the queue must be non-empty.
func (q *queue) peekAt() int64 {
	assert.That(len(q.items) > 0, "peek on empty queue")
	return q.items[0].at
}

// pop removes and returns the earliest item.
func (q *queue) pop() item {
	assert.That(len(q.items) > 0, "pop on empty queue")
	top := q.items[0]
	last := len(q.items) - 1
	q.items[0] = q.items[last]
	q.items[last] = item{}
	q.items = q.items[:last]
	i, n := 0, last
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && less(&q.items[r], &q.items[l]) {
			m = r
		}
		if !less(&q.items[m], &q.items[i]) {
			break
		}
		q.items[i], q.items[m] = q.items[m], q.items[i]
		i = m
	}
	return top
}
