package robots_test

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// STYLE 1: data flows one way, fetch → status → parser →
// matcher → cache → robots → client, with internal packages below all. Each
// package may import only what this table allows (besides the standard
// library); test files are free.
var allowedImports = map[string][]string{
	"internal/urlpath":    nil,
	"internal/bypass":     nil,
	"internal/authority":  {"internal/urlpath", "golang.org/x/net/"},
	"internal/sharedtest": nil,
	"internal/benchdata":  {"internal/sharedtest"},
	"parser":              {"usage"},
	"usage":               nil, // AIPREF vocabulary: a leaf, the standard library only
	"matcher":             {"parser", "usage", "internal/urlpath"},
	"fetch":               {"internal/authority", "golang.org/x/net/"},
	"status":              {"fetch"},
	// The cache keeps fetch outcomes: it knows fetch's and status's types,
	// nothing of parsing or matching.
	"internal/freshness":    {"github.com/pquerna/cachecontrol/"},
	"internal/exportstream": nil,
	// It holds bodies compressed with s2, the fastest compressor of the
	// best-kept compression library, and with its zstd, which takes less
	// memory, for the larger ones (see cache.BodyCodec).
	"cache": {"fetch", "status", "internal/freshness", "internal/exportstream", "github.com/hashicorp/golang-lru/v2/",
		"github.com/klauspost/compress/s2", "github.com/klauspost/compress/zstd"},
	"cache/fleettest": {"cache", "fetch", "status", "github.com/stretchr/testify/"},
	// The engine behind the root's cache: tiers, flights, policy, clocks.
	// It holds cache's Records; it knows nothing of parsing or matching.
	"internal/engine": {"cache", "fetch", "status", "internal/freshness", "internal/exportstream", "internal/authority",
		"github.com/hashicorp/golang-lru/v2/"},
	".": {"parser", "matcher", "usage", "fetch", "status", "cache", "internal/engine", "internal/freshness",
		"internal/authority", "internal/urlpath", "internal/bypass"},
	"client": {".", "usage", "internal/bypass", "internal/urlpath"},
	// The test site judges crawlers by the parser and matcher alone, so
	// that its verdicts are the library's, not the Client's caching, and
	// reads caching headers with the freshness rules the Client uses.
	"robotstest": {"parser", "matcher", "internal/freshness"},
	// The command uses the public API only, so that what it prints is what
	// a crawler using the library gets; the pure freshness rules the
	// Client computes lifetimes with, to explain one; and the canonical
	// form the matcher compares patterns in, so that lint calls two
	// spellings of one rule the same rule exactly when the matcher does.
	"cmd/robots": {".", "parser", "matcher", "usage", "fetch", "status", "internal/freshness", "internal/urlpath"},
}

func TestImportsPointOneWay(t *testing.T) {
	const module = "github.com/crawlkit/robots"
	seen := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != "." {
			return filepath.SkipDir // a nested module (bench, redisfleet) keeps its own imports
		}
		pkg, err := build.ImportDir(path, 0)
		if err != nil {
			return nil // no Go files here
		}
		rel := filepath.ToSlash(path)
		allowed, ok := allowedImports[rel]
		if !assert.True(t, ok, "package %s is missing from allowedImports", rel) {
			return nil
		}
		seen[rel] = true
		for _, imp := range pkg.Imports {
			if first, _, _ := strings.Cut(imp, "/"); !strings.Contains(first, ".") {
				continue // the standard library
			}
			assert.True(t, importAllowed(module, imp, allowed), "%s imports %s", rel, imp)
		}
		return nil
	})
	require.NoError(t, err)
	for p := range allowedImports {
		assert.True(t, seen[p], "allowedImports names %s, which has no package", p)
	}
}

func importAllowed(module, imp string, allowed []string) bool {
	for _, a := range allowed {
		switch {
		case a == ".":
			a = module // the root package
		case !strings.Contains(strings.SplitN(a, "/", 2)[0], "."):
			a = module + "/" + a // a package of this module
		}
		if imp == a || strings.HasSuffix(a, "/") && strings.HasPrefix(imp, a) {
			return true
		}
	}
	return false
}
