package bench

import (
	"testing"

	"github.com/jimsmart/grobotstxt"
	"github.com/temoto/robotstxt"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/internal/benchdata"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
)

// Each library answers in its fastest way: ours with a compiled matcher,
// temoto/robotstxt with the agent's group found once, grobotstxt with its
// only API, which parses the body on every call.

// BenchmarkAllowed is one decision per op, on a file parsed beforehand where
// the library allows it.
func BenchmarkAllowed(b *testing.B) {
	for _, c := range benchdata.Matching() {
		urls := make([]string, len(c.Paths))
		for i, p := range c.Paths {
			urls[i] = "https://example.com" + p
		}
		b.Run(c.Name+"/lib=robots", func(b *testing.B) {
			m := matcher.Compile(parser.Parse(c.Body), c.Agent)
			each(b, c.Paths, func(p string) { m.Allowed(p) })
		})
		b.Run(c.Name+"/lib=temoto", func(b *testing.B) {
			r, err := robotstxt.FromBytes(c.Body)
			if err != nil {
				b.Fatal(err)
			}
			g := r.FindGroup(c.Agent)
			each(b, c.Paths, func(p string) { g.Test(p) })
		})
		b.Run(c.Name+"/lib=grobotstxt", func(b *testing.B) {
			body := string(c.Body)
			m := grobotstxt.NewRobotsMatcher()
			each(b, urls, func(u string) { m.AgentAllowed(body, c.Agent, u) })
		})
	}
}

// each calls fn on the inputs in turn, one per op.
func each(b *testing.B, inputs []string, fn func(string)) {
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		fn(inputs[i])
		if i++; i == len(inputs) {
			i = 0
		}
	}
}

// BenchmarkParseCorpus parses every file of the real corpus per op.
func BenchmarkParseCorpus(b *testing.B) {
	files, total := benchdata.Corpus()
	if files == nil {
		b.Skip("corpus not found")
	}
	strs := make([]string, len(files))
	for i, f := range files {
		strs[i] = string(f)
	}
	run := func(name string, fn func(i int)) {
		b.Run("lib="+name, func(b *testing.B) {
			b.SetBytes(int64(total))
			b.ReportAllocs()
			for b.Loop() {
				for i := range files {
					fn(i)
				}
			}
		})
	}
	run("robots", func(i int) { parser.Parse(files[i]) })
	run("temoto", func(i int) { robotstxt.FromBytes(files[i]) }) //nolint:errcheck // parse cost only
	run("grobotstxt", func(i int) { grobotstxt.Parse(strs[i], nopHandler{}) })
}

type nopHandler struct{}

func (nopHandler) HandleRobotsStart()                      {}
func (nopHandler) HandleRobotsEnd()                        {}
func (nopHandler) HandleUserAgent(int, string)             {}
func (nopHandler) HandleAllow(int, string)                 {}
func (nopHandler) HandleDisallow(int, string)              {}
func (nopHandler) HandleSitemap(int, string)               {}
func (nopHandler) HandleUnknownAction(int, string, string) {}

// BenchmarkOneShot parses each file of BenchmarkAllowed and decides one URL
// per op with AllowedBy: what a caller holding fresh bytes pays.
// grobotstxt does the same work for every decision.
func BenchmarkOneShot(b *testing.B) {
	oneShot(b, func(c benchdata.Case, u, _ string) { robots.AllowedBy(c.Body, c.Agent, u) })
}

// BenchmarkCompileOnce is BenchmarkOneShot the way a Client takes a body:
// parse, compile for the crawler, then decide.
func BenchmarkCompileOnce(b *testing.B) {
	oneShot(b, func(c benchdata.Case, _, p string) { matcher.Compile(parser.Parse(c.Body), c.Agent).Allowed(p) })
}

// oneShot runs ours, and the peers, on a body given with each decision.
func oneShot(b *testing.B, ours func(c benchdata.Case, url, path string)) {
	for _, c := range benchdata.Matching() {
		urls := make([]string, len(c.Paths))
		for i, p := range c.Paths {
			urls[i] = "https://example.com" + p
		}
		body := string(c.Body)
		b.Run(c.Name+"/lib=robots", func(b *testing.B) {
			i := 0
			each(b, urls, func(u string) {
				ours(c, u, c.Paths[i])
				if i++; i == len(c.Paths) {
					i = 0
				}
			})
		})
		b.Run(c.Name+"/lib=temoto", func(b *testing.B) {
			each(b, c.Paths, func(p string) {
				r, _ := robotstxt.FromBytes(c.Body)
				r.TestAgent(p, c.Agent)
			})
		})
		b.Run(c.Name+"/lib=grobotstxt", func(b *testing.B) {
			each(b, urls, func(u string) { grobotstxt.AgentAllowed(body, c.Agent, u) })
		})
	}
}
