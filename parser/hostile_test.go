package parser

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/internal/sharedtest"
)

func TestHostileInput(t *testing.T) {
	const mb = 1 << 20
	tests := []struct {
		name  string
		body  func() []byte
		check func(t *testing.T, r *Robots)
	}{
		{"10 MB single line", func() []byte {
			return append([]byte("Disallow: /"), bytes.Repeat([]byte("a"), 10*mb)...)
		}, func(t *testing.T, r *Robots) {
			assert.Equal(t, 1, r.Lines)
			assert.Equal(t, []WarningKind{LineTooLong, OutsideGroup}, kinds(r))
		}},
		{"100 000 rules", func() []byte {
			var b bytes.Buffer
			b.WriteString("User-agent: *\n")
			for i := 0; i < 100_000; i++ {
				b.WriteString("Disallow: /dir/")
				b.WriteString(strings.Repeat("x", i%50))
				b.WriteString("\n")
			}
			return b.Bytes()
		}, func(t *testing.T, r *Robots) {
			require.Len(t, r.Groups, 1)
			assert.Len(t, r.Groups[0].Rules, 100_000)
			assert.Equal(t, 100_001, r.Groups[0].Rules[99_999].Line)
		}},
		{"CR-only 2 MB", func() []byte {
			return bytes.Repeat([]byte("User-agent: a\rDisallow: /x\r"), 2*mb/27)
		}, func(t *testing.T, r *Robots) {
			assert.Len(t, r.Groups, 2*mb/27)
			assert.Empty(t, r.Warnings)
		}},
		{"1 MB of blank lines", func() []byte {
			return bytes.Repeat([]byte("\n"), mb)
		}, func(t *testing.T, r *Robots) {
			assert.Equal(t, mb+1, r.Lines)
		}},
		{"NUL bytes everywhere", func() []byte {
			return bytes.Repeat([]byte("User-agent: *\x00\nDisallow: /\x00x\n\x00\x00\n"), 10_000)
		}, func(t *testing.T, r *Robots) {
			assert.Len(t, r.Groups, 10_000)
			assert.Equal(t, "/", r.Groups[0].Rules[0].Pattern)
			// One warning a line: the first MaxWarnings are kept.
			assert.Equal(t, MaxWarnings, len(r.Warnings))
			assert.Equal(t, 30_000-MaxWarnings, r.OmittedWarnings)
		}},
		{"invalid UTF-8", func() []byte {
			return bytes.Repeat([]byte("User-agent: \xff\xfe\nDisallow: /\xc3\x28\n"), 10_000)
		}, func(t *testing.T, r *Robots) {
			assert.Equal(t, MaxWarnings, len(r.Warnings))
			assert.Equal(t, 20_000-MaxWarnings, r.OmittedWarnings)
			assert.Equal(t, "/\xc3\x28", r.Groups[0].Rules[0].Pattern)
		}},
		{"one million colons", func() []byte {
			return bytes.Repeat([]byte(":"), mb)
		}, func(t *testing.T, r *Robots) {
			assert.Equal(t, []WarningKind{LineTooLong, Unparsable}, kinds(r))
		}},
		{"random bytes", func() []byte {
			rng := rand.New(rand.NewPCG(1, 2))
			b := make([]byte, mb)
			for i := range b {
				b[i] = byte(rng.UintN(256))
			}
			return b
		}, func(t *testing.T, r *Robots) {
			checkInvariants(t, nil, r)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.body()
			var r *Robots
			total, retained := sharedtest.Memory(func() { r = Parse(body) })
			// Parse keeps the values it uses and a structure for each
			// record it keeps, allocated at its final size: linear,
			// nothing more. The worst case is a group every 27 bytes
			// (136 bytes of structures). Warnings and uninterpreted
			// records past a cap cost nothing. Its speed is for the
			// benchmarks (BenchmarkParseShapes), never a timer here.
			assert.Less(t, total, int64(6*len(body)+mb/2), "bytes allocated")
			assert.Less(t, retained, int64(6*len(body)+mb/2), "bytes retained")
			runtime.KeepAlive(r)
			tt.check(t, r)
			checkInvariants(t, body, r)
		})
	}
}

// Every file of the real-world corpus parses without panic and keeps the
// invariants; Google's counts of recognised lines over the whole corpus are
// reproduced (../shared/corpus/README.md).
func TestCorpus(t *testing.T) {
	files := sharedtest.Corpus(t)
	require.Len(t, files, 2661)
	agents, allows, disallows, sitemapLines := 0, 0, 0, 0
	for name, body := range files {
		r := Parse(body)
		if !checkInvariants(t, body, r) {
			t.Fatalf("invariants broken on %s", name)
		}
		for _, l := range scanAll(body) {
			switch l.key {
			case keyUserAgent:
				agents++
			case keyAllow:
				allows++
			case keyDisallow:
				disallows++
			case keySitemap:
				sitemapLines++
			}
		}
	}
	assert.Equal(t, 15706, agents, "user-agent lines")
	assert.Equal(t, 13196, allows, "allow lines")
	assert.Equal(t, 221962, disallows, "disallow lines")
	assert.Equal(t, 15698, sitemapLines, "sitemap lines")
}

// referenceLines splits body into lines independently of the scanner: skip
// the longest prefix of a UTF-8 BOM, then end a line at every CRLF, CR or
// LF, octet by octet.
func referenceLines(body []byte) []string {
	s := string(body)
	for _, bom := range []string{"\xEF\xBB\xBF", "\xEF\xBB", "\xEF"} {
		if strings.HasPrefix(s, bom) {
			s = s[len(bom):]
			break
		}
	}
	var lines []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n':
			lines = append(lines, s[start:i])
			start = i + 1
		case '\r':
			lines = append(lines, s[start:i])
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	return append(lines, s[start:])
}

// content is the part of a raw line that the parser reads: cut at the line
// length limit, at a NUL byte and at '#', without surrounding white space.
func content(raw string) string {
	if len(raw) > MaxLineLength {
		raw = raw[:MaxLineLength]
	}
	raw, _, _ = strings.Cut(raw, "\x00")
	raw, _, _ = strings.Cut(raw, "#")
	return strings.Trim(raw, " \t")
}

// checkInvariants verifies what must hold for any body: line numbers are in
// range and point at the lines that hold what they number. With a nil body
// only the range checks are made.
func checkInvariants(t *testing.T, body []byte, r *Robots) bool {
	t.Helper()
	ok := true
	for _, w := range r.Warnings {
		ok = assert.True(t, w.Line >= 1 && w.Line <= r.Lines, "warning line %d of %d", w.Line, r.Lines) && ok
		ok = assert.NotEmpty(t, w.Message) && ok
	}
	seen := map[string]bool{}
	for _, s := range r.Sitemaps {
		ok = assert.False(t, seen[s], "duplicate sitemap %q", s) && ok
		seen[s] = true
	}
	if body == nil {
		return ok
	}
	lines := referenceLines(body)
	ok = assert.Equal(t, len(lines), r.Lines, "line count") && ok
	holds := func(line int, keys []string, value string) bool {
		if !assert.True(t, line >= 1 && line <= len(lines), "line %d of %d", line, len(lines)) {
			return false
		}
		c := strings.ToLower(content(lines[line-1]))
		known := false
		for _, k := range keys {
			known = known || strings.HasPrefix(c, k)
		}
		return assert.True(t, known, "line %d %q starts with none of %q", line, c, keys) &&
			assert.True(t, strings.HasSuffix(c, strings.ToLower(value)), "line %d %q ends with %q", line, c, value)
	}
	for _, g := range r.Groups {
		ok = assert.NotEmpty(t, g.Agents, "a group has at least one user-agent") && ok
		for _, a := range g.Agents {
			ok = holds(a.Line, []string{"user-agent", "useragent", "user agent"}, a.Value) && ok
		}
		for _, rule := range g.Rules {
			keys := []string{"disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw"}
			if rule.Allow {
				keys = []string{"allow"}
			}
			ok = holds(rule.Line, keys, rule.Pattern) && ok
		}
	}
	for _, o := range r.Other {
		ok = holds(o.Line, []string{strings.ToLower(o.Key)}, o.Value) && ok
	}
	return ok
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		rfc9309Example,
		"\xEF\xBB\xBFUser-agent: *\r\nDisallow: /a\r\n",
		"\xEF\xBBuser-agent x\rdisallow /\r",
		"User-agent: a\n\nuser agent: b\nDisallowed: /x#c\nsite-map: s\n",
		"Disallow /a /b\n: x\n\x00\n#\n",
		"Crawl-delay: 1.5\nUser-agent: *\nCrawl-delay: .5\nContent-Usage: /p/ train-ai=n\n",
	} {
		f.Add([]byte(s))
	}
	for _, b := range sharedtest.CorpusSample(f, 50) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r := Parse(body)
		if !checkInvariants(t, body, r) {
			t.FailNow()
		}
		// The records the storing pass reads instead of the body hold
		// everything it needs: scanning twice gives the same.
		require.Equal(t, scannedTwice(body), r)
		require.Equal(t, scannedTwice(body), parse(body, &recording{limit: 1}, nil))
	})
}
