package sim

import (
	"errors"
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
