package harness

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"testing"
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
