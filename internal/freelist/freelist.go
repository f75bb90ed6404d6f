// Package freelist keeps values for reuse, as sync.Pool does, except that
// it never drops one at a garbage collection: a campaign's few large
// scratch buffers (world.Pads) stay resident from seed to seed, where a
// sync.Pool, cleared every other collection, would hand out fresh memory
// to fault in again. It is safe for concurrent use.
package freelist

import "sync"

// List holds up to Max values; Put beyond that drops the value.
type List struct {
	Max int

	mu    sync.Mutex
	items []any
}

// Get returns a kept value, or nil when none is kept.
func (l *List) Get() any {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.items)
	if n == 0 {
		return nil
	}
	v := l.items[n-1]
	l.items[n-1] = nil
	l.items = l.items[:n-1]
	return v
}

// Put keeps v unless the list already holds Max values.
func (l *List) Put(v any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.items) < l.Max {
		l.items = append(l.items, v)
	}
}

// Len reports how many values the list keeps.
func (l *List) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.items)
}
