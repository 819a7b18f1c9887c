package matcher_test

import (
	"testing"

	"github.com/crawlkit/robots/internal/benchdata"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
)

// BenchmarkAllowed measures one Allowed call on a compiled matcher, path
// normalization included; each op asks the next path of the case in turn.
func BenchmarkAllowed(b *testing.B) {
	for _, c := range benchdata.Matching() {
		m := matcher.Compile(parser.Parse(c.Body), c.Agent)
		b.Run(c.Name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				m.Allowed(c.Paths[i])
				if i++; i == len(c.Paths) {
					i = 0
				}
			}
		})
	}
}

// BenchmarkCompile measures group selection and compilation of a parsed file.
func BenchmarkCompile(b *testing.B) {
	for _, c := range benchdata.Matching() {
		r := parser.Parse(c.Body)
		b.Run(c.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				matcher.Compile(r, c.Agent)
			}
		})
	}
}

// BenchmarkUsage measures Usage beside Allowed on the typical file with
// Content-Usage rules added (benchdata.WithUsage), the file of the root
// package's BenchmarkClientUsage.
func BenchmarkUsage(b *testing.B) {
	c, ok := benchdata.Typical()
	if !ok {
		c = benchdata.PlainRules(200)
	}
	m := matcher.Compile(parser.Parse(benchdata.WithUsage(c)), c.Agent)
	for _, bm := range []struct {
		name string
		fn   func(string)
	}{
		{"allowed", func(p string) { m.Allowed(p) }},
		{"usage", func(p string) { m.Usage(p) }},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				bm.fn(c.Paths[i])
				if i++; i == len(c.Paths) {
					i = 0
				}
			}
		})
	}
}

// BenchmarkCompileCorpus compiles every file of the real corpus for one
// crawler per op, the files parsed beforehand; it reports the mean Size of
// the compiled matchers (B/file-mean) beside the mean body (B/body-mean).
func BenchmarkCompileCorpus(b *testing.B) {
	files, total := benchdata.Corpus()
	if files == nil {
		b.Skip("corpus not found")
	}
	parsed := make([]*parser.Robots, len(files))
	for i, f := range files {
		parsed[i] = parser.Parse(f)
	}
	var size int64
	for _, r := range parsed {
		size += matcher.Compile(r, "ExampleBot").Size()
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range parsed {
			matcher.Compile(r, "ExampleBot")
		}
	}
	b.ReportMetric(float64(size)/float64(len(files)), "B/file-mean")
	b.ReportMetric(float64(total)/float64(len(files)), "B/body-mean")
}
