package parser

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the testdata/*.golden files from the parser's output")

// dump renders a Robots as text, one record per line, for golden files.
func dump(r *Robots) string {
	var b strings.Builder
	fmt.Fprintf(&b, "lines: %d\n", r.Lines)
	for i, g := range r.Groups {
		fmt.Fprintf(&b, "group %d\n", i+1)
		for _, a := range g.Agents {
			fmt.Fprintf(&b, "  agent %q line %d token %q global %v", a.Value, a.Line, a.Token(), a.IsGlobal())
			if a.CrawlDelay != 0 {
				fmt.Fprintf(&b, " crawl-delay %v", a.CrawlDelay)
			}
			b.WriteString("\n")
		}
		for _, rule := range g.Rules {
			fmt.Fprintf(&b, "  %q line %d\n", rule.String(), rule.Line)
		}
		for _, cu := range g.ContentUsage {
			fmt.Fprintf(&b, "  content-usage path %q preferences %q line %d\n", cu.Path, cu.Preferences, cu.Line)
		}
	}
	for _, s := range r.Sitemaps {
		fmt.Fprintf(&b, "sitemap %q\n", s)
	}
	for _, o := range r.Other {
		fmt.Fprintf(&b, "other %q: %q line %d\n", o.Key, o.Value, o.Line)
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "warning %s: %s\n", w.Kind, w)
	}
	return b.String()
}

// TestGolden parses each testdata/*.txt, of this package and of the module
// (the files the README uses), and compares the result with the .golden file
// of the same name in testdata; "go test ./parser -run TestGolden -update"
// rewrites them (the flag must follow the package).
func TestGolden(t *testing.T) {
	own, err := filepath.Glob("testdata/*.txt")
	require.NoError(t, err)
	module, err := filepath.Glob("../testdata/*.txt")
	require.NoError(t, err)
	files := append(own, module...)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			body, err := os.ReadFile(f)
			require.NoError(t, err)
			got := dump(Parse(body))
			golden := filepath.Join("testdata", strings.TrimSuffix(filepath.Base(f), ".txt")+".golden")
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./parser -run TestGolden -update to create it")
			assert.Equal(t, string(want), got)
		})
	}
}
