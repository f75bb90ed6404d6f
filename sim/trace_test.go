package sim

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

var errDiskFull = errors.New("disk full")

// failingWriter accepts n writes, then fails every write.
type failingWriter struct {
	n      int
	writes int
}

func (f *failingWriter) Write(b []byte) (int, error) {
	f.writes++
	if f.writes > f.n {
		return 0, errDiskFull
	}
	return len(b), nil
}

func TestTraceWriterErrorIsReported(t *testing.T) {
	plain := Run(3, toyOptions(toyConfig{}))
	if plain.TraceErr != nil {
		t.Fatalf("TraceErr without a writer: %v", plain.TraceErr)
	}
	opts := toyOptions(toyConfig{})
	fw := &failingWriter{n: 5}
	opts.TraceWriter = fw
	r := Run(3, opts)
	if !errors.Is(r.TraceErr, errDiskFull) || !strings.Contains(r.TraceErr.Error(), "after 5 lines") {
		t.Fatalf("TraceErr = %v", r.TraceErr)
	}
	if fw.writes != 6 {
		t.Fatalf("%d writes: the writer must not be called again after it failed", fw.writes)
	}
	if r.Fingerprint != plain.Fingerprint {
		t.Fatal("a failing trace writer changed the run")
	}
	if !strings.Contains(r.Report(), "TRACE INCOMPLETE sim: trace writer failed after 5 lines: disk full") {
		t.Fatalf("report does not mention the trace error:\n%s", r.Report())
	}
	ok := Run(3, func() Options { o := toyOptions(toyConfig{}); o.TraceWriter = &failingWriter{n: 1 << 30}; return o }())
	if ok.TraceErr != nil || strings.Contains(ok.Report(), "TRACE INCOMPLETE") {
		t.Fatalf("healthy writer reported %v", ok.TraceErr)
	}
}

// TestAppendTimeNineDecimals holds trace timestamps to seconds with
// exactly nine decimals, zero-padded, the sign before the seconds.
func TestAppendTimeNineDecimals(t *testing.T) {
	for _, ns := range []int64{0, 1, 9, 10, 999_999_999, 1_000_000_000, 1_000_000_001,
		12_345_678_901, 86_400_000_000_123, -1, -1_500_000_000} {
		abs, sign := ns, ""
		if ns < 0 {
			abs, sign = -ns, "-"
		}
		want := fmt.Sprintf("%s%d.%09d", sign, abs/1e9, abs%1e9)
		if got := string(appendTime([]byte("x"), ns)); got != "x"+want {
			t.Errorf("appendTime(%d) = %q, want %q", ns, got, "x"+want)
		}
	}
}

// A tracer that keeps its lines returns each exactly as written, in order,
// across the chunks they are stored in (empty and long lines included),
// and the lines kept before a read are still there, unchanged, after more
// are written.
func TestTraceKeepsEveryLineAcrossChunks(t *testing.T) {
	tr := newTracer(0, nil, true)
	var want []string
	write := func(n int) {
		for i := range n {
			text := strings.Repeat("x", i%300)
			if i%97 == 0 {
				text = strings.Repeat("long ", keptChunkBytes/4)
			}
			tr.line(int64(i), "n", "->", text)
			want = append(want, keptLine(int64(i), text))
		}
	}
	write(2000)
	first := append([]string(nil), tr.keptLines()...)
	write(1500)
	got := tr.keptLines()
	if len(got) != len(want) {
		t.Fatalf("%d lines kept, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("line %d = %.60q, want %.60q", i, got[i], want[i])
		}
	}
	for i := range first {
		if got[i] != first[i] {
			t.Fatalf("line %d changed after more lines: %.60q, was %.60q", i, got[i], first[i])
		}
	}
	none := newTracer(0, nil, false)
	none.line(0, "n", "->", "x")
	if got := none.keptLines(); got != nil {
		t.Fatalf("a tracer that keeps nothing returned %q", got)
	}
}

// keptLine is the line tracer.line(at, "n", "->", text) writes.
func keptLine(at int64, text string) string {
	return string(appendTime(nil, at)) + " n -> " + text
}
