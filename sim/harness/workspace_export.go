package harness

import (
	"archive/tar"
	"bytes"
	"slices"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/wire"
)

// BulkFile is a large file some seeded workspaces hold besides
// WorkspaceFiles, so that an export spans several 64 KiB chunks. The
// workload never reads or writes it.
const BulkFile = "dir/bulk.bin"

// Bounds of the bulk file's drawn size.
const (
	BulkBytesMin = 64 << 10
	BulkBytesMax = 200 << 10
)

// seedBulk adds the bulk file to t in a third of the workspaces, drawn
// from the workspace's own stream after its small files.
func seedBulk(t map[string]string, pick func(int) int) {
	if pick(3) != 0 {
		return
	}
	n := BulkBytesMin + pick(BulkBytesMax-BulkBytesMin+1)
	b := make([]byte, n)
	base := byte(pick(256))
	for i := range b {
		b[i] = base + byte(i%251)
	}
	t[BulkFile] = string(b)
}

// WorkspaceExportRecorder is an optional extension of Recorder: the
// native exports as they happen.
type WorkspaceExportRecorder interface {
	// WorkspaceExported reports the archive the native export of env
	// produced through reader, and the files it holds at that instant.
	WorkspaceExported(at int64, device, reader, env string, archive []byte, files map[string]string)
}

// exportWorkspace answers the archive of the Environment's tree at the
// instant the native export runs: one tar stream, files in name order.
func (h *Harness) exportWorkspace(now time.Time, c daemon.CallID, op daemon.ExportWorkspace) {
	h.later(now, h.wsLatency(wsExport), func(now time.Time) {
		rd := h.readers()[op.Reader]
		if rd == nil || rd.closed {
			h.truth.violate("workspace export through %s, which is not open", op.Reader)
		}
		t := h.tree(op.Environment)
		archive := TarOf(t)
		if rec, ok := h.dev.Recorder.(WorkspaceExportRecorder); ok {
			snap := make(map[string]string, len(t))
			for k, v := range t { //tidy:sorted a copy
				snap[k] = v
			}
			rec.WorkspaceExported(at(now), string(h.dev.ID), op.Reader, op.Environment, archive, snap)
		}
		h.result(now, c, daemon.ExportWorkspaceResult{Archive: archive})
	})
}

// TarOf is the tar stream of files: one regular file per name, in name
// order, with fixed metadata.
func TarOf(files map[string]string) []byte {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, n := range names {
		v := files[n]
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: n, Mode: 0o644, Size: int64(len(v)), ModTime: time.Unix(0, 0), Format: tar.FormatUSTAR}
		if err := tw.WriteHeader(hdr); err != nil {
			panic("harness: tar header: " + err.Error())
		}
		if _, err := tw.Write([]byte(v)); err != nil {
			panic("harness: tar body: " + err.Error())
		}
	}
	if err := tw.Close(); err != nil {
		panic("harness: tar close: " + err.Error())
	}
	return buf.Bytes()
}

// exportChunkLost consumes an armed export_chunk_lost fault for an export
// chunk the daemon sends.
func (n *Daemon) exportChunkLost(f wire.Frame) bool {
	r, ok := f.Payload.(wire.WorkspaceExportResult)
	return ok && r.Outcome == wire.OutcomeChunk && n.d.take(ExportChunkLost)
}
