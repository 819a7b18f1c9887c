// Package sharedtest finds the project's shared test material (../shared:
// the real-world corpus and the published conformance suites) for tests.
//
// When the material is absent, a test that needs it does not pass quietly:
// with ROBOTS_REQUIRE_SHARED=1 it fails; otherwise it skips with a message
// saying what did not run, and appends that message to the file named by
// ROBOTS_SKIP_LOG, if set, which .ci/run prints after the tests (go test
// shows nothing of a passing package, skips included, without -v).
//
// Non-goals: anything a non-test build uses.
package sharedtest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir returns the directory ../shared/<sub> next to the module root, or the
// one under $ROBOTS_SHARED when that is set. When the directory does not
// exist, it reports it (see Missing) and skips t.
func Dir(t testing.TB, sub string) string {
	t.Helper()
	d, ok := Lookup(sub)
	if !ok {
		Missing(t, sub, "this test did not run")
		t.SkipNow()
	}
	return d
}

// Missing reports that t goes without the shared material sub, and what
// that costs: it fails t when ROBOTS_REQUIRE_SHARED=1, and otherwise logs a
// loud message and appends it to the file named by ROBOTS_SKIP_LOG. The
// caller skips or carries on with less.
func Missing(t testing.TB, sub, cost string) {
	t.Helper()
	Lacking(t, "ROBOTS_REQUIRE_SHARED", fmt.Sprintf("SHARED TEST MATERIAL MISSING: %s: ../shared/%s not found (set ROBOTS_SHARED to its location): %s", t.Name(), sub, cost))
}

// Lacking reports msg, what t goes without: a failure when the environment
// variable require is "1", else a log line also appended to the file named
// by ROBOTS_SKIP_LOG. The caller skips or carries on with less.
func Lacking(t testing.TB, require, msg string) {
	t.Helper()
	if os.Getenv(require) == "1" {
		t.Fatal(msg + "; " + require + "=1 makes that a failure")
	}
	t.Log(msg)
	if name := os.Getenv("ROBOTS_SKIP_LOG"); name != "" {
		if f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintln(f, msg)
			f.Close()
		}
	}
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
// name order. Fuzz targets seed from it; when the corpus is absent, it
// reports that the fuzz target runs without those seeds (see Missing) and
// returns nothing.
func CorpusSample(t testing.TB, step int) [][]byte {
	t.Helper()
	dir, ok := Lookup("corpus/robots")
	if !ok {
		Missing(t, "corpus/robots", "fuzzing without the corpus seeds")
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

// Memory returns the bytes fn allocates on the heap in all, and the bytes
// still held after it returns: what it built and keeps reachable (assigned
// to a variable outside fn, say). Each side is measured after two
// collections, so that the scratch memory sync.Pools keep between calls
// (the parser's store, the matcher's scratch), which a pool lets go after
// two collections without use, is not counted as fn's. For bounds on
// memory in tests; benchmarks measure the rest.
func Memory(fn func()) (allocated, retained int64) {
	var before, after runtime.MemStats
	collect()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	allocated = int64(after.TotalAlloc - before.TotalAlloc)
	collect()
	runtime.ReadMemStats(&after)
	return allocated, int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// collect runs two collections: the first moves what the pools hold to
// their victim caches, the second frees it.
func collect() {
	runtime.GC()
	runtime.GC()
}

// Case is one vector of ../shared/conformance/cases.json: a check of
// Google's robots_test.cc, of google/robotstxt-spec-test, or of an RFC 9309
// example (see the README beside it).
type Case struct {
	ID         string   `json:"id"`
	Source     string   `json:"source"`
	Group      string   `json:"group"`
	Kind       string   `json:"kind"`
	Robots     *string  `json:"robots"`
	RobotsB64  *string  `json:"robots_b64"`
	Agent      string   `json:"agent"`
	URL        string   `json:"url"`
	Want       bool     `json:"want"`
	RFCWant    *bool    `json:"rfc_want"`
	DesignWant *bool    `json:"design_want"`
	Flags      []string `json:"flags"`
	Note       string   `json:"note"`
}

// Body returns the case's robots.txt body, decoded from base64 when the
// vector holds it that way (bodies that are not valid UTF-8).
func (c Case) Body() ([]byte, error) {
	if c.RobotsB64 != nil {
		return base64.StdEncoding.DecodeString(*c.RobotsB64)
	}
	if c.Robots == nil {
		return nil, fmt.Errorf("case %s has neither robots nor robots_b64", c.ID)
	}
	return []byte(*c.Robots), nil
}

// Expected is the project's answer: design_want where the project departs
// from Google on purpose (a crawler named with digits obeys the group that
// names it), else RFC 9309's where it and Google disagree (rfc_want), else
// want.
func (c Case) Expected() bool {
	switch {
	case c.DesignWant != nil:
		return *c.DesignWant
	case c.RFCWant != nil:
		return *c.RFCWant
	}
	return c.Want
}

// Cases returns every conformance vector, with its body decoded; it skips t
// when the vectors are absent.
func Cases(t testing.TB) []Case {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(Dir(t, "conformance"), "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []Case
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no conformance vectors in cases.json")
	}
	return cases
}
