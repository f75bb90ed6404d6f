package conform

import (
	"sync"
	"time"
)

// queue collects the frames one connection delivers, in order; a reader
// goroutine pushes, the runner pops with a deadline.
type queue struct {
	mu     sync.Mutex
	frames [][]byte
	closed bool
	err    error
	wake   chan struct{}
	done   chan struct{} // closed when the connection ended
}

func newQueue() *queue { return &queue{wake: make(chan struct{}, 1), done: make(chan struct{})} }

func (q *queue) push(b []byte) {
	q.mu.Lock()
	q.frames = append(q.frames, b)
	q.mu.Unlock()
	q.signal()
}

// end records that the connection ended with err.
func (q *queue) end(err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.closed, q.err = true, err
		close(q.done)
	}
}

func (q *queue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// ended reports whether the connection ended, and how.
func (q *queue) ended() (bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed, q.err
}

// pop returns the next frame, waiting up to wait for one.
func (q *queue) pop(wait time.Duration) ([]byte, bool) {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		q.mu.Lock()
		if len(q.frames) > 0 {
			f := q.frames[0]
			q.frames = q.frames[1:]
			q.mu.Unlock()
			return f, true
		}
		closed := q.closed
		q.mu.Unlock()
		if closed || wait <= 0 {
			return nil, false
		}
		select {
		case <-q.wake:
		case <-q.done:
		case <-deadline.C:
			return nil, false
		}
	}
}

// drain returns every frame queued now.
func (q *queue) drain() [][]byte {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.frames
	q.frames = nil
	return out
}

// waitEnd waits up to wait for the connection to end.
func (q *queue) waitEnd(wait time.Duration) (bool, error) {
	if wait > 0 {
		select {
		case <-q.done:
		case <-time.After(wait):
		}
	}
	return q.ended()
}
