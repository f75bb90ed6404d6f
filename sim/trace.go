package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"strconv"
	"time"
)

// Epoch is virtual time zero. Every run starts here, so traces are stable.
var Epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// tracer writes canonical trace lines. Each line is
//
//	<seconds since Epoch, 9 decimals> <node or "kernel"> <arrow> <description>
//
// where the arrow is "<-" for an event delivered to the node, "->" for an
// effect it emitted and "!!" for something the kernel did (fault, drop, mark).
// The SHA-256 of all lines (each ending in '\n') is the run's fingerprint.
type tracer struct {
	sum   hash.Hash
	ring  [][]byte
	next  int
	lines uint64
	out   io.Writer
	keep  bool
	all   []string
	// kept holds the kept lines not yet in all, one after the other, and
	// keptEnds where each ends: they join all as substrings of one string
	// per keptChunkBytes (flushKept), not one allocation per line.
	kept     []byte
	keptEnds []int
	buf      []byte
	batch    []byte // lines not yet hashed: hashing in blocks is cheaper
	err      error  // first error of out; no line is written after it
	// at and atText are the instant of the last line begun and its
	// rendering (appendTime).
	at     int64
	atText []byte
	// failedAt is the number of lines written to out before the error.
	failedAt uint64
}

// traceBatchBytes is how many bytes of lines are hashed at once.
const traceBatchBytes = 8 << 10

// keptChunkBytes is how many bytes of kept lines share one string.
const keptChunkBytes = 64 << 10

func newTracer(tail int, out io.Writer, keep bool) *tracer {
	assert.That(tail >= 0, "negative trace tail")
	return &tracer{sum: sha256.New(), ring: make([][]byte, tail), out: out, keep: keep,
		buf: make([]byte, 0, 256), batch: make([]byte, 0, traceBatchBytes+512)}
}

// begin starts a new line in the scratch buffer and returns it. The
// lines of one instant share its rendering (t.at, t.atText).
func (t *tracer) begin(at int64, who string, arrow string) []byte {
	if at != t.at || len(t.atText) == 0 {
		t.at, t.atText = at, appendTime(t.atText[:0], at)
	}
	b := append(t.buf[:0], t.atText...)
	b = append(b, ' ')
	b = append(b, who...)
	b = append(b, ' ')
	b = append(b, arrow...)
	b = append(b, ' ')
	return b
}

// end finishes the line b (as returned by begin and appended to).
func (t *tracer) end(b []byte) {
	b = append(b, '\n')
	t.buf = b
	t.batch = append(t.batch, b...)
	if len(t.batch) >= traceBatchBytes {
		t.sum.Write(t.batch)
		t.batch = t.batch[:0]
	}
	t.lines++
	if len(t.ring) > 0 {
		slot := t.ring[t.next]
		t.ring[t.next] = append(slot[:0], b[:len(b)-1]...)
		t.next = (t.next + 1) % len(t.ring)
	}
	if t.out != nil && t.err == nil {
		if _, t.err = t.out.Write(b); t.err != nil {
			t.failedAt = t.lines - 1
		}
	}
	if t.keep {
		t.kept = append(t.kept, b[:len(b)-1]...)
		t.keptEnds = append(t.keptEnds, len(t.kept))
		if len(t.kept) >= keptChunkBytes {
			t.flushKept()
		}
	}
}

// flushKept moves the pending kept lines to all.
func (t *tracer) flushKept() {
	chunk, start := string(t.kept), 0
	for _, end := range t.keptEnds {
		t.all = append(t.all, chunk[start:end])
		start = end
	}
	t.kept, t.keptEnds = t.kept[:0], t.keptEnds[:0]
}

// keptLines returns every line kept so far (nil unless the tracer keeps
// lines and wrote one).
func (t *tracer) keptLines() []string {
	t.flushKept()
	return t.all
}

// line writes one complete line.
func (t *tracer) line(at int64, who, arrow, text string) {
	b := t.begin(at, who, arrow)
	b = append(b, text...)
	t.end(b)
}

// writeErr returns the first error of the trace writer, if any.
func (t *tracer) writeErr() error {
	if t.err == nil {
		return nil
	}
	return fmt.Errorf("sim: trace writer failed after %d lines: %w", t.failedAt, t.err)
}

// fingerprint returns the hex SHA-256 of every line written so far.
func (t *tracer) fingerprint() string {
	t.sum.Write(t.batch)
	t.batch = t.batch[:0]
	var sum [sha256.Size]byte
	return hex.EncodeToString(t.sum.Sum(sum[:0]))
}

// tail returns the last lines of the ring buffer, oldest first.
func (t *tracer) tail() []string {
	n := len(t.ring)
	if uint64(n) > t.lines {
		n = int(t.lines)
	}
	out := make([]string, 0, n)
	start := t.next - n
	for i := 0; i < n; i++ {
		j := (start + i + len(t.ring)) % len(t.ring)
		out = append(out, string(t.ring[j]))
	}
	return out
}

// appendTime renders ns since Epoch as seconds with nine decimals.
func appendTime(b []byte, ns int64) []byte {
	if ns < 0 {
		b = append(b, '-')
		ns = -ns
	}
	b = strconv.AppendInt(b, ns/1e9, 10)
	b = append(b, '.')
	// Nine digits, last first: dividing by the constant 10 compiles to a
	// multiplication, where a divisor that changes each digit would not.
	frac := ns % 1e9
	var d [9]byte
	for i := len(d) - 1; i >= 0; i-- {
		d[i] = byte('0' + frac%10)
		frac /= 10
	}
	return append(b, d[:]...)
}

// FormatTime renders a virtual instant the way trace lines do.
func FormatTime(t time.Time) string {
	return string(appendTime(nil, int64(t.Sub(Epoch))))
}

const hexDigits = "0123456789abcdef"

// appendFrameDefault renders a frame as its length and up to 16 leading
// bytes in hex; it is used when Options.Describe is nil.
func appendFrameDefault(b []byte, frame []byte) []byte {
	b = append(b, "len="...)
	b = strconv.AppendInt(b, int64(len(frame)), 10)
	b = append(b, " hex="...)
	n := min(len(frame), 16)
	for _, c := range frame[:n] {
		b = append(b, hexDigits[c>>4], hexDigits[c&15])
	}
	if n < len(frame) {
		b = append(b, "..."...)
	}
	return b
}

// FirstDivergence compares two traces line by line and returns the index of
// the first differing line with both lines ("" where a trace has ended).
// ok is false when the traces are identical.
func FirstDivergence(a, b []string) (index int, lineA, lineB string, ok bool) {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i, a[i], b[i], true
		}
	}
	if len(a) == len(b) {
		return 0, "", "", false
	}
	if len(a) > n {
		return n, a[n], "", true
	}
	return n, "", b[n], true
}
