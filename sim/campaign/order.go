package campaign

// Orderer restores order to results that arrive out of order (from a pool
// of workers): Put the result for index i, get back every result that is now
// ready, in index order. Indexes start at 0 and each must be put once.
type Orderer[T any] struct {
	next    int
	pending map[int]T
}

// NewOrderer returns an orderer expecting index 0 first.
func NewOrderer[T any]() *Orderer[T] { return &Orderer[T]{pending: map[int]T{}} }

// Put stores the result for index i and returns the run of results ready
// from the lowest index not yet returned.
func (o *Orderer[T]) Put(i int, v T) []T {
	_, dup := o.pending[i]
	assert.That(i >= o.next && !dup, "each index is put once")
	o.pending[i] = v
	var out []T
	for {
		x, ok := o.pending[o.next]
		if !ok {
			return out
		}
		delete(o.pending, o.next)
		out = append(out, x)
		o.next++
	}
}

// Waiting returns how many results are held back.
func (o *Orderer[T]) Waiting() int { return len(o.pending) }
