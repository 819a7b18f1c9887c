package parser_test

import (
	"bytes"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/internal/benchdata"
	"github.com/crawlkit/robots/internal/sharedtest"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
)

// The memory bounds of parsing (README, "Performance"): parsing
// and compiling allocate at most 4 times the input for blank or junk input
// and 8 times for rule-dense input, and the Robots and the Matcher keep at
// most 6 times. Of that, Parse allocates about what the Robots it returns
// keeps, at most 6 times the input (500 KiB of the smallest groups that
// hold a rule: a Group, an Agent and a Rule are 136 bytes for 26 bytes of
// text), and nothing for what it does not keep.
const (
	junkBound   = 4
	denseBound  = 8
	parseBound  = 6
	retainBound = 6
)

// overBounds are the two shapes whose retained memory is held to a figure
// of their own, with the reason; they allocate within the bound.
var overBounds = map[string]struct{ allocated, retained float64 }{
	// A piece of two octets, "*\xff", keeps the escape "*%FF" the
	// matcher compares paths with (2 times the input), the octets as
	// written, which a match reports (1 time), and the piece's node (a
	// 4-byte index, 2 times), beside the pattern the Robots keeps (1
	// time): 6 times, with nothing to share.
	"non-ASCII pieces": {denseBound, 6.1},
	// A piece of three octets, "*abc", all different: each is a node of
	// the trie of the literals (12 bytes and its edge's first octet, 3.3
	// times its four octets; where the children of the nodes that branch
	// are, 0.1 times more), beside its index, its octets and the Robots'
	// (1 time each): 6.6 times.
	"short distinct pieces": {denseBound, 6.7},
}

// measure returns what fn allocates and what it leaves on the heap, as
// multiples of n bytes.
func measure(n int, fn func()) (allocated, retained float64) {
	a, r := sharedtest.Memory(fn)
	return float64(a) / float64(n), float64(r) / float64(n)
}

// TestParseMemory checks the bounds on 500 KiB of every shape and on the
// largest file of the real corpus: what Parse allocates and keeps, and what
// parsing and compiling allocate and keep.
func TestParseMemory(t *testing.T) {
	check := func(t *testing.T, name string, body []byte, dense bool, agent string) {
		var r *parser.Robots
		allocated, retained := measure(len(body), func() { r = parser.Parse(body) })
		runtime.KeepAlive(r)
		t.Logf("%7d bytes: Parse allocated %.2fx, retained %.2fx", len(body), allocated, retained)
		assert.LessOrEqual(t, allocated, float64(parseBound), "allocated by Parse")
		// The heap figure is noisy by a few KiB.
		assert.LessOrEqual(t, retained, retainBound+0.03, "retained by the Robots")
		var m *matcher.Matcher
		r = nil // else the first Robots, freed while measuring, counts against the second
		allocated, retained = measure(len(body), func() { r = parser.Parse(body); m = matcher.Compile(r, agent) })
		runtime.KeepAlive(r)
		runtime.KeepAlive(m)
		t.Logf("%7d bytes: Parse and Compile allocated %.2fx, retained %.2fx", len(body), allocated, retained)
		allocBound, retainedBound := float64(junkBound), retainBound+0.03
		if dense {
			allocBound = denseBound
		}
		if over, ok := overBounds[name]; ok {
			allocBound, retainedBound = over.allocated, over.retained
		}
		assert.LessOrEqual(t, allocated, allocBound, "allocated by Parse and Compile")
		assert.LessOrEqual(t, retained, retainedBound, "retained by the Robots and the Matcher")
	}
	for _, s := range benchdata.Shapes() {
		t.Run(s.Name, func(t *testing.T) { check(t, s.Name, s.Body(size), s.Dense, s.Agent) })
	}
	t.Run("corpus", func(t *testing.T) { check(t, "corpus", largest(t), true, "ExampleBot") })
	// The issue that set the bounds: with MaxBytes raised, 8 MiB of
	// newlines allocated 420 MB. Junk costs what it costs at 500 KiB:
	// (almost) nothing.
	for _, junk := range []string{"\n", "a\n", "x: y\n"} {
		t.Run("8 MiB of "+strconv.Quote(junk), func(t *testing.T) {
			n := 8 << 20 / len(junk)
			body := bytes.Repeat([]byte(junk), n)
			var r *parser.Robots
			allocated, _ := measure(len(body), func() { r = parser.Parse(body) })
			assert.Less(t, allocated, 0.1, "allocated by Parse")
			assert.Equal(t, n+1, r.Lines)
		})
	}
}

// The caps make the cost of junk constant: a warning is kept for each of
// the first MaxWarnings lines, and a record for each of the first MaxOther.
func TestWarningsAndRecordsCapped(t *testing.T) {
	r := parser.Parse(bytes.Repeat([]byte("x: y\n"), 3*parser.MaxWarnings))
	assert.Len(t, r.Warnings, parser.MaxWarnings)
	assert.Equal(t, 2*parser.MaxWarnings, r.OmittedWarnings)
	assert.Equal(t, parser.MaxWarnings, r.Warnings[parser.MaxWarnings-1].Line, "the first ones are kept")
	assert.Len(t, r.Other, parser.MaxOther)
	assert.Equal(t, 3*parser.MaxWarnings-parser.MaxOther, r.OmittedOther)
	assert.Equal(t, parser.MaxOther, r.Other[parser.MaxOther-1].Line)

	r = parser.Parse(bytes.Repeat([]byte("x: y\n"), parser.MaxWarnings))
	assert.Len(t, r.Warnings, parser.MaxWarnings)
	assert.Zero(t, r.OmittedWarnings, "at the cap, nothing is omitted")
	assert.Len(t, r.Other, parser.MaxOther)
	assert.Zero(t, r.OmittedOther)

	// A partial byte order mark's warning is about line 1: it stays first.
	r = parser.Parse(append([]byte("\xEF\xBB"), bytes.Repeat([]byte("a\n"), 2*parser.MaxWarnings)...))
	require.Len(t, r.Warnings, parser.MaxWarnings)
	assert.Equal(t, parser.InvalidUTF8, r.Warnings[0].Kind)
	assert.Equal(t, parser.Unparsable, r.Warnings[1].Kind)
	assert.Equal(t, 2*parser.MaxWarnings+1-parser.MaxWarnings, r.OmittedWarnings)
}

// A key or value quoted in a warning is cut after 64 bytes, so that a
// message costs little whatever the line.
func TestLongKeysCutInMessages(t *testing.T) {
	long := bytes.Repeat([]byte{0xff}, 16_000)
	r := parser.Parse(append(long, ": v"...))
	require.Len(t, r.Warnings, 2)
	assert.Equal(t, parser.UnknownKey, r.Warnings[1].Kind)
	assert.Equal(t, `unknown key "`+string(bytes.Repeat([]byte(`\xff`), 64))+`…"; kept, not interpreted`, r.Warnings[1].Message)
	require.Len(t, r.Other, 1)
	assert.Equal(t, string(long), r.Other[0].Key, "the record keeps the key whole")

	r = parser.Parse([]byte("user-agent: *\ncrawl-delay: " + string(bytes.Repeat([]byte("x"), 100))))
	require.Len(t, r.Warnings, 1)
	assert.Equal(t, `crawl-delay "`+string(bytes.Repeat([]byte("x"), 64))+`…" is not a number of seconds; kept, not interpreted`, r.Warnings[0].Message)

	r = parser.Parse([]byte("useragent" + string(bytes.Repeat([]byte("s"), 56)) + ": a"))
	require.Len(t, r.Warnings, 1)
	assert.Equal(t, `"useragent`+string(bytes.Repeat([]byte("s"), 55))+`…" accepted as user-agent`, r.Warnings[0].Message)
	r = parser.Parse([]byte("useragent" + string(bytes.Repeat([]byte("s"), 55)) + ": a"))
	assert.Equal(t, `"useragent`+string(bytes.Repeat([]byte("s"), 55))+`" accepted as user-agent`, r.Warnings[0].Message, "64 bytes are quoted whole")
}

// The Robots shares no memory with the body: changing the body afterwards
// changes nothing of it.
func TestParseCopiesValues(t *testing.T) {
	body := []byte("User-agent: a\nDisallow: /x\nSitemap: /s\nHost: h\nUser-agent: b\nContent-Usage: /p t=n\n")
	r := parser.Parse(body)
	want := parser.Parse(bytes.Clone(body))
	for i := range body {
		body[i] = 'z'
	}
	assert.Equal(t, want, r)
}
