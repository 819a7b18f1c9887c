package matcher_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/crawlkit/robots/internal/benchdata"
	"github.com/crawlkit/robots/internal/urlpath"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
)

// BenchmarkHostile measures one check of a hostile path against a compiled
// hostile file at the body cap (by design: at most 1 ms, whatever the file and
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

// usageShape rewrites a hostile file's rules as Content-Usage rules and
// puts first a literal rule of their most common length that the path
// matches: every other rule of that length is then a tie to search
// (aipref.md reading 10), the worst for Usage.
func usageShape(c hostile) (body []byte, tie string) {
	lines := strings.Split(string(c.body), "\n")
	count := map[int]int{}
	var rules []string
	for _, l := range lines[1:] {
		_, pat, ok := strings.Cut(l, ": ")
		if !ok {
			continue
		}
		rules = append(rules, "Content-Usage: "+pat+" train-ai=n")
		count[len(urlpath.Pattern(pat))]++
	}
	common := 0
	for n, k := range count {
		if k > count[common] || k == count[common] && n > common {
			common = n
		}
	}
	tie = "Content-Usage: " + urlpath.Pattern(c.path)[:min(common, len(urlpath.Pattern(c.path)))] + " search=n"
	var b strings.Builder
	b.WriteString("User-agent: *\n" + tie + "\n")
	for _, r := range rules {
		if b.Len()+len(r)+1 > len(c.body) {
			break
		}
		b.WriteString(r + "\n")
	}
	return []byte(b.String()), tie
}

// BenchmarkHostileUsage measures Usage on the hostile shapes written as
// Content-Usage rules, each with a tie to combine: the same 1 ms bound.
func BenchmarkHostileUsage(b *testing.B) {
	for _, c := range hostileCases(bodyCap, pathCap) {
		body, _ := usageShape(c)
		m := matcher.Compile(parser.Parse(body), "ExampleBot")
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.Usage(c.path)
			}
		})
	}
}

// BenchmarkHostileMembers parses and compiles each file of Content-Usage
// and Content-Signal lines of many members, of one long member, or of
// labels that combine (benchdata.UsageFloods), at the body cap: at most 8 times the file
// allocated (alloc/input). Then it checks a path against it: the same
// 1 ms bound as the other hostile files.
func BenchmarkHostileMembers(b *testing.B) {
	for _, s := range benchdata.UsageFloods() {
		body := s.Body(bodyCap)
		b.Run("compile/"+s.Name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			n := 0
			for b.Loop() {
				matcher.Compile(parser.Parse(body), s.Agent)
				n++
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n)/float64(len(body)), "alloc/input")
		})
		m := matcher.Compile(parser.Parse(body), s.Agent)
		b.Run("check/"+s.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.Usage("/p/index.html")
				m.Signal()
			}
		})
	}
}
