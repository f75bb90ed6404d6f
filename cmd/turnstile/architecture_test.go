package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// architecturePaths returns the repository paths ARCHITECTURE.md names:
// every relative link target, and every code span that starts with a
// top-level directory of the repository (templates such as
// `core/<family>.go` or `sim/...` are left out).
func architecturePaths(t *testing.T, root string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, m := range regexp.MustCompile(`\]\(([^)#\s]+)\)`).FindAllStringSubmatch(string(b), -1) {
		if !strings.Contains(m[1], "://") {
			paths = append(paths, m[1])
		}
	}
	for _, m := range regexp.MustCompile("`([^`\\s]+)`").FindAllStringSubmatch(string(b), -1) {
		p := m[1]
		if strings.ContainsAny(p, "<{*") || strings.Contains(p, "...") || !strings.Contains(p, "/") {
			continue
		}
		first, _, _ := strings.Cut(p, "/")
		if fi, err := os.Stat(filepath.Join(root, first)); err == nil && fi.IsDir() {
			paths = append(paths, p)
		}
	}
	return paths
}

// TestArchitecturePathsExist keeps ARCHITECTURE.md true to the tree: a
// file or package it names that was moved or deleted fails here.
func TestArchitecturePathsExist(t *testing.T) {
	root := "../.."
	paths := architecturePaths(t, root)
	if len(paths) < 50 {
		t.Fatalf("ARCHITECTURE.md names only %d paths; the parser lost them", len(paths))
	}
	for _, p := range paths {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
			t.Errorf("ARCHITECTURE.md names %s: %v", p, err)
		}
	}
}
