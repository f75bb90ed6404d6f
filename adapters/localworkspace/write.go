package localworkspace

import (
	"archive/tar"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

func rejectWrite(reason string) error { return &agent.WriteRejection{Reason: reason} }

// WriteWorkspaceFile installs f at its path: the body is written to a
// new file beside the destination, checked against its declared size and
// SHA-256, and renamed over the destination, so a reader sees the old or
// the new content, never a part. A destination that is a directory, a
// symbolic link or anything but a regular file, or a parent that escapes
// the root, is refused before anything changes (*agent.WriteRejection).
// Any other error may leave the destination changed.
func (o *Owner) WriteWorkspaceFile(ctx context.Context, f agent.WorkspaceFile) error {
	root, err := o.handle()
	if err != nil {
		return err
	}
	name, ok := cleanPath(f.Path, false)
	if !ok || f.SizeBytes < 0 || f.SizeBytes > wire.TransferBytesMax || f.Data == nil {
		return rejectWrite("")
	}
	if err := ctx.Err(); err != nil {
		return rejectWrite("")
	}
	if info, err := root.Lstat(name); err == nil {
		switch {
		case info.IsDir():
			return rejectWrite(agent.WriteReasonDestinationDirectory)
		case !info.Mode().IsRegular():
			return rejectWrite(agent.WriteReasonUnsafeDestination)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return rejectWrite(agent.WriteReasonUnsafeDestination)
	}
	dir := path.Dir(name)
	if err := root.MkdirAll(dir, 0o755); err != nil {
		return rejectWrite(agent.WriteReasonUnsafeDestination)
	}
	tmp, err := stagingName(dir)
	if err != nil {
		return rejectWrite("")
	}
	if err := writeChecked(root, tmp, f); err != nil {
		_ = root.Remove(tmp)
		return err
	}
	if err := root.Rename(tmp, name); err != nil {
		_ = root.Remove(tmp)
		return fmt.Errorf("localworkspace: install: %w", err)
	}
	return nil
}

// stagingName is a fresh name beside the destination.
func stagingName(dir string) (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return path.Join(dir, ".turnstile-write-"+hex.EncodeToString(b[:])), nil
}

// writeChecked writes the body to tmp (created exclusively) and checks
// its size and digest; a mismatch is a rejection (tmp is removed by the
// caller, the destination was never touched).
func writeChecked(root *os.Root, tmp string, f agent.WorkspaceFile) error {
	out, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return rejectWrite(agent.WriteReasonUnsafeDestination)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), io.LimitReader(f.Data, f.SizeBytes+1))
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return rejectWrite("") // the destination is untouched
	}
	if n != f.SizeBytes || hex.EncodeToString(h.Sum(nil)) != f.SHA256 {
		return rejectWrite("")
	}
	return nil
}

// ExportWorkspace writes the workspace as one tar stream: directories,
// regular files and symbolic links (as links, never followed), in
// lexical walk order, at most wire.ExportBytesMax bytes.
func (o *Owner) ExportWorkspace(ctx context.Context, w io.Writer) (int64, error) {
	root, err := o.handle()
	if err != nil {
		return 0, err
	}
	cw := &countingWriter{w: w, limit: wire.ExportBytesMax}
	tw := tar.NewWriter(cw)
	fsys := root.FS()
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		return exportEntry(root, tw, p, d)
	})
	if err == nil {
		err = tw.Close()
	}
	if err != nil {
		return cw.n, fmt.Errorf("localworkspace: export: %w", err)
	}
	return cw.n, nil
}

func exportEntry(root *os.Root, tw *tar.Writer, p string, d fs.DirEntry) error {
	info, err := d.Info()
	if err != nil {
		return err
	}
	link := ""
	if info.Mode()&fs.ModeSymlink != 0 {
		if link, err = root.Readlink(p); err != nil {
			return err
		}
	} else if !info.Mode().IsRegular() && !info.IsDir() {
		return nil // devices, sockets and pipes are not workspace content
	}
	hdr, err := tar.FileInfoHeader(info, link)
	if err != nil {
		return err
	}
	hdr.Name = p
	if info.IsDir() {
		hdr.Name += "/"
	}
	hdr.Uname, hdr.Gname, hdr.Uid, hdr.Gid = "", "", 0, 0
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return nil
	}
	f, err := root.Open(p)
	if err != nil {
		return err
	}
	_, err = io.CopyN(tw, f, info.Size())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// countingWriter counts bytes and refuses to pass limit.
type countingWriter struct {
	w     io.Writer
	n     int64
	limit int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.n+int64(len(p)) > c.limit {
		return 0, fmt.Errorf("archive exceeds %d bytes", c.limit)
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
