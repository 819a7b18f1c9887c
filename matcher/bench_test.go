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
// Content-Usage rules added to the crawler's group, as the root package's
// BenchmarkClientUsage does: a path-less rule and one per path of the case.
func BenchmarkUsage(b *testing.B) {
	c, ok := benchdata.Typical()
	if !ok {
		c = benchdata.PlainRules(200)
	}
	body := append([]byte(nil), c.Body...)
	body = append(body, "\nUser-agent: "+c.Agent+"\nAllow: /\nContent-Usage: train-ai=n\n"...)
	for i, p := range c.Paths {
		if i < 20 {
			body = append(body, "Content-Usage: "+p+" train-ai=y, search=y\n"...)
		}
	}
	m := matcher.Compile(parser.Parse(body), c.Agent)
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
