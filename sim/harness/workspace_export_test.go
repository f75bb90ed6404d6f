package harness

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestTarOfHoldsTheTreeInNameOrder: every file once, in name order, with
// its exact content; the same tree gives the same bytes.
func TestTarOfHoldsTheTreeInNameOrder(t *testing.T) {
	files := map[string]string{"b.txt": "bee", "a.txt": "", "dir/c.txt": string(make([]byte, 70<<10))}
	b := TarOf(files)
	if !bytes.Equal(b, TarOf(files)) {
		t.Fatal("two archives of one tree differ")
	}
	tr := tar.NewReader(bytes.NewReader(b))
	var names []string
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		if string(body) != files[h.Name] {
			t.Errorf("%s holds %d bytes, want %d", h.Name, len(body), len(files[h.Name]))
		}
		names = append(names, h.Name)
	}
	if want := []string{"a.txt", "b.txt", "dir/c.txt"}; len(names) != 3 || names[0] != want[0] || names[1] != want[1] || names[2] != want[2] {
		t.Fatalf("names %v, want %v", names, want)
	}
}

// TestSeedBulkBounds: the bulk file, when drawn, is within its bounds.
func TestSeedBulkBounds(t *testing.T) {
	for seed := range 30 {
		n := seed
		t1 := map[string]string{}
		seedBulk(t1, func(k int) int { n = n*31 + 7; return n % k })
		if v, ok := t1[BulkFile]; ok && (len(v) < BulkBytesMin || len(v) > BulkBytesMax) {
			t.Fatalf("bulk of %d bytes outside [%d, %d]", len(v), BulkBytesMin, BulkBytesMax)
		}
	}
}

// TestWorkspaceTransferFaults: an armed digest fault changes one byte of
// the next write chunk only; the receipt and export faults take the next
// matching frame only, once per arming.
func TestWorkspaceTransferFaults(t *testing.T) {
	d := &Device{tokens: map[sim.FaultKind]int{}}
	n := &Daemon{d: d}
	chunk := wire.Frame{ID: "m", Payload: wire.WorkspaceWrite{Step: wire.StepChunk, Data: []byte("abcd")}}
	if got := n.corruptChunk(chunk); !bytes.Equal(got.Payload.(wire.WorkspaceWrite).Data, []byte("abcd")) {
		t.Fatal("changed without an armed fault")
	}
	d.Arm(WriteDigestMismatch)
	begin := wire.Frame{ID: "m", Payload: wire.WorkspaceWrite{Step: wire.StepBegin}}
	n.corruptChunk(begin)
	got := n.corruptChunk(chunk).Payload.(wire.WorkspaceWrite).Data
	if bytes.Equal(got, []byte("abcd")) || len(got) != 4 {
		t.Fatalf("chunk %q not changed in one byte", got)
	}
	if !bytes.Equal(chunk.Payload.(wire.WorkspaceWrite).Data, []byte("abcd")) {
		t.Fatal("the sent frame's bytes were changed in place")
	}
	if d.Armed(WriteDigestMismatch) != 0 {
		t.Fatal("the fault was not consumed")
	}
	received := wire.Frame{ID: "m", Payload: wire.WorkspaceWriteResult{Outcome: wire.OutcomeReceived, Offset: 4}}
	ready := wire.Frame{ID: "m", Payload: wire.WorkspaceWriteResult{Outcome: wire.OutcomeReady}}
	d.Arm(WriteTransferLost)
	if n.transferReceiptLost(ready) || !n.transferReceiptLost(received) || n.transferReceiptLost(received) {
		t.Fatal("the transfer fault did not take exactly the next chunk receipt")
	}
	xchunk := wire.Frame{ID: "x", Payload: wire.WorkspaceExportResult{Outcome: wire.OutcomeChunk, Data: []byte("t")}}
	d.Arm(ExportChunkLost)
	if !n.exportChunkLost(xchunk) || n.exportChunkLost(xchunk) {
		t.Fatal("the export fault did not take exactly the next chunk")
	}
}
