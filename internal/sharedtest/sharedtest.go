// Package sharedtest finds the project's shared test material (../shared:
// the real-world corpus and the published conformance suites) for tests.
// Tests that need it skip when it is absent, so a bare checkout still passes.
package sharedtest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir returns the directory ../shared/<sub> next to the module root, or the
// one under $ROBOTS_SHARED when that is set. It skips t when the directory
// does not exist.
func Dir(t testing.TB, sub string) string {
	t.Helper()
	d, ok := Lookup(sub)
	if !ok {
		t.Skipf("shared test material %q not found; set ROBOTS_SHARED to its location", sub)
	}
	return d
}

// Lookup is Dir without a testing.TB: it reports whether the directory
// exists instead of skipping.
func Lookup(sub string) (string, bool) {
	base := os.Getenv("ROBOTS_SHARED")
	if base == "" {
		_, file, _, _ := runtime.Caller(0) // .../internal/sharedtest/sharedtest.go
		base = filepath.Join(filepath.Dir(file), "..", "..", "..", "shared")
	}
	d := filepath.Join(base, sub)
	if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
		return "", false
	}
	return d, true
}

// Corpus returns the contents of every file of the real-world corpus
// (../shared/corpus/robots), keyed by file name; it skips t when the corpus
// is absent.
func Corpus(t testing.TB) map[string][]byte {
	t.Helper()
	dir := Dir(t, "corpus/robots")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := make(map[string][]byte, len(entries))
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

// CorpusSample returns every step-th file of the real-world corpus, in file
// name order, or nothing when the corpus is absent. Fuzz targets seed from it.
func CorpusSample(step int) [][]byte {
	dir, ok := Lookup("corpus/robots")
	if !ok {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out [][]byte
	for i := 0; i < len(entries); i += step {
		if b, err := os.ReadFile(filepath.Join(dir, entries[i].Name())); err == nil {
			out = append(out, b)
		}
	}
	return out
}
