package matcher_test

import (
	"testing"

	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
)

// BenchmarkHostile measures one check of a hostile path against a compiled
// hostile file at the body cap (DESIGN: at most 1 ms, whatever the file and
// path).
func BenchmarkHostile(b *testing.B) {
	for _, c := range hostileCases(bodyCap, pathCap) {
		m := matcher.Compile(parser.Parse(c.body), "ExampleBot")
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.Allowed(c.path)
			}
		})
	}
}
