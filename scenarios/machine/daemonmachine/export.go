package daemonmachine

import (
	"archive/tar"
	"bytes"
	"io/fs"
	"path"
	"testing/fstest"

	"github.com/turnstile-sim/turnstile/scenarios"
)

// export archives the tree as the local workspace owner archives a
// directory: one tar stream in lexical walk order, directories with a
// trailing slash, no owner names or IDs; every entry has the mode and
// time a harness file step gives it on disk (0755 directories, 0644
// files, scenarios.FileTime).
func (t tree) export() ([]byte, error) {
	m := fstest.MapFS{}
	for p, b := range t {
		m[p] = &fstest.MapFile{Data: b, Mode: 0o644, ModTime: scenarios.FileTime}
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			m[d] = &fstest.MapFile{Mode: fs.ModeDir | 0o755, ModTime: scenarios.FileTime}
		}
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	err := fs.WalkDir(m, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		hdr, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		hdr.Name = p
		if d.IsDir() {
			hdr.Name += "/"
		}
		hdr.Uname, hdr.Gname, hdr.Uid, hdr.Gid = "", "", 0, 0
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if !d.IsDir() {
			_, err = tw.Write(t[p])
		}
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	return buf.Bytes(), err
}
