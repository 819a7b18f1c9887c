package parser

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/internal/sharedtest"
)

func rules(r *Robots) []Rule {
	var out []Rule
	for _, g := range r.Groups {
		out = append(out, g.Rules...)
	}
	return out
}

func agentValues(g Group) []string {
	var out []string
	for _, a := range g.Agents {
		out = append(out, a.Value)
	}
	return out
}

func kinds(r *Robots) []WarningKind {
	var out []WarningKind
	for _, w := range r.Warnings {
		out = append(out, w.Kind)
	}
	return out
}

// RFC 9309 §2.2 (NL = CR / LF / CRLF) and Google: every line ending counts,
// and line numbers are those a text editor shows.
func TestLineEndings(t *testing.T) {
	for name, body := range map[string]string{
		"LF":             "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n",
		"CRLF":           "User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n",
		"CR":             "User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r",
		"no final":       "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /",
		"mixed":          "User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /",
		"LF then CR+LF ": "User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\r\n\n\r\nDisallow: /",
	} {
		t.Run(name, func(t *testing.T) {
			r := Parse([]byte(body))
			require.Len(t, r.Groups, 2)
			assert.Equal(t, []Rule{{Allow: true, Pattern: "/some/path", Line: 2}}, r.Groups[0].Rules)
			assert.Equal(t, []Agent{{Value: "bar", Line: 3}}, r.Groups[1].Agents)
			assert.Equal(t, []Rule{{Allow: false, Pattern: "/", Line: 6}}, r.Groups[1].Rules)
			assert.Empty(t, r.Warnings)
		})
	}
	// A final line ending starts a last, empty line (Google's reporter).
	assert.Equal(t, 7, Parse([]byte("a: b\n\n\n\n\n\n")).Lines)
	assert.Equal(t, 1, Parse(nil).Lines)
	assert.Equal(t, 2, Parse([]byte("x: y\r\n")).Lines, "CRLF is one line ending")
	assert.Equal(t, 3, Parse([]byte("x: y\n\r")).Lines, "LF CR is two")
}

// Google: a UTF-8 BOM, or a leading part of one, is skipped at the start of
// the file only (ID_UTF8ByteOrderMarkIsSkipped).
func TestByteOrderMark(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		wantRules int
		wantKinds []WarningKind
	}{
		{"full BOM", "\xEF\xBB\xBFUser-Agent: foo\nAllow: /AnyValue\n", 1, nil},
		{"partial BOM EF BB", "\xEF\xBBUser-Agent: foo\nAllow: /AnyValue\n", 1, []WarningKind{InvalidUTF8}},
		{"partial BOM EF", "\xEFUser-Agent: foo\nAllow: /AnyValue\n", 1, []WarningKind{InvalidUTF8}},
		// Of a broken BOM only the leading EF is skipped: line 1 holds
		// garbage before the key, so the user-agent line is unknown and the
		// rule has no group.
		{"broken BOM", "\xEF\x11\xBFUser-Agent: foo\nAllow: /AnyValue\n", 0,
			[]WarningKind{InvalidUTF8, InvalidUTF8, UnknownKey, OutsideGroup}},
		{"BOM mid-file", "User-Agent: foo\n\xEF\xBB\xBFAllow: /AnyValue\n", 0,
			[]WarningKind{BOMNotAtStart, UnknownKey}},
		{"BOM alone", "\xEF\xBB\xBF", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Parse([]byte(tt.body))
			assert.Len(t, rules(r), tt.wantRules)
			assert.Equal(t, tt.wantKinds, kinds(r))
		})
	}
}

// Google's two real corpus files whose BOM was encoded twice: the first line
// is an unknown key, so no group starts and every rule is ignored.
func TestDoublyEncodedBOM(t *testing.T) {
	r := Parse([]byte("\xC3\xAF\xC2\xBB\xC2\xBFUser-agent: *\nDisallow: /\n"))
	assert.Empty(t, r.Groups)
	require.Equal(t, []WarningKind{UnknownKey, OutsideGroup}, kinds(r))
	assert.Contains(t, r.Warnings[0].Message, "byte order mark encoded twice")
}

func TestKeys(t *testing.T) {
	tests := []struct {
		name     string
		line     string
		wantKey  key
		wantTypo bool
	}{
		// RFC 9309 §2.2: keys are case-insensitive.
		{"user-agent", "User-Agent: x", keyUserAgent, false},
		{"USER-AGENT", "USER-AGENT: x", keyUserAgent, false},
		{"allow", "allow: /x", keyAllow, false},
		{"ALLOW", "ALLOW: /x", keyAllow, false},
		{"disallow", "DisAllow: /x", keyDisallow, false},
		{"sitemap", "SITEMAP: http://x", keySitemap, false},
		// Google: keys are matched by prefix.
		{"disallowed", "Disallowed: /x", keyDisallow, true},
		{"allowance", "Allowance: /x", keyAllow, true},
		{"user-agent-foo", "User-agent-foo: x", keyUserAgent, true},
		{"sitemaps", "Sitemaps: http://x", keySitemap, true},
		// Google: accepted misspellings.
		{"useragent", "useragent: x", keyUserAgent, true},
		{"user agent", "user agent: x", keyUserAgent, true},
		{"dissallow", "dissallow: /x", keyDisallow, true},
		{"dissalow", "dissalow: /x", keyDisallow, true},
		{"disalow", "disalow: /x", keyDisallow, true},
		{"diasllow", "diasllow: /x", keyDisallow, true},
		{"disallaw", "disallaw: /x", keyDisallow, true},
		{"site-map", "site-map: http://x", keySitemap, true},
		// Google accepts no misspelling of allow.
		{"alow", "alow: /x", keyUnknown, false},
		{"crawl-delay", "Crawl-Delay: 1", keyCrawlDelay, false},
		{"content-usage", "Content-Usage: train-ai=n", keyContentUsage, false},
		{"host", "Host: example.com", keyUnused, false},
		{"clean-param", "Clean-param: ref /a", keyUnused, false},
		{"noindex", "Noindex: /x", keyUnused, false},
		{"unicorns", "unicorns: /extinct", keyUnknown, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := split(1, []byte(tt.line))
			assert.Equal(t, tt.wantKey, l.key)
			assert.Equal(t, tt.wantTypo, l.has(flagTypo))
		})
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		name         string
		text         string
		wantKey      string
		wantValue    string
		missingColon bool
		unparsable   bool
		empty        bool
		comment      bool
	}{
		{name: "plain", text: "Disallow: /a", wantKey: "Disallow", wantValue: "/a"},
		// RFC 9309 §2.2: optional white space around the colon.
		{name: "no spaces", text: "Disallow:/a", wantKey: "Disallow", wantValue: "/a"},
		{name: "spaces and tabs", text: " \tDisallow \t: \t/a \t", wantKey: "Disallow", wantValue: "/a"},
		// RFC 9309 §2.2.3: # starts a comment anywhere.
		{name: "trailing comment", text: "Disallow: /a # no", wantKey: "Disallow", wantValue: "/a", comment: true},
		{name: "comment glued", text: "Disallow: /a#b", wantKey: "Disallow", wantValue: "/a", comment: true},
		{name: "comment only", text: "# Disallow: /a", empty: true, comment: true},
		{name: "blank", text: " \t ", empty: true},
		{name: "empty value", text: "Disallow:", wantKey: "Disallow", wantValue: ""},
		{name: "value with colon", text: "Sitemap: https://e.com/s.xml", wantKey: "Sitemap", wantValue: "https://e.com/s.xml"},
		// Google: a missing colon is accepted with exactly two tokens.
		{name: "missing colon", text: "Disallow /a", wantKey: "Disallow", wantValue: "/a", missingColon: true},
		{name: "missing colon tab", text: "Disallow\t\t/a", wantKey: "Disallow", wantValue: "/a", missingColon: true},
		{name: "missing colon comment", text: "User-Agent bar # no", wantKey: "User-Agent", wantValue: "bar", missingColon: true, comment: true},
		{name: "three tokens", text: "Disallow /a /b", unparsable: true},
		{name: "one token", text: "absolutely", unparsable: true},
		{name: "random line", text: "absolutely random line", unparsable: true},
		{name: "comment after word", text: "Error #and comment", unparsable: true, comment: true},
		{name: "empty key", text: ": /a", unparsable: true},
		// Google: a NUL byte ends the line's content.
		{name: "NUL", text: "Disallow: /a\x00b", wantKey: "Disallow", wantValue: "/a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := split(1, []byte(tt.text))
			assert.Equal(t, tt.wantKey, string(l.rawKey))
			assert.Equal(t, tt.wantValue, string(l.value))
			assert.Equal(t, tt.missingColon, l.has(flagMissingColon), "missingColon")
			assert.Equal(t, tt.unparsable, l.has(flagUnparsable), "unparsable")
			assert.Equal(t, tt.empty, l.empty, "empty")
			assert.Equal(t, tt.comment, l.comment, "comment")
		})
	}
}

// Google: a line longer than 16,663 bytes is cut there and still used.
func TestLineTooLong(t *testing.T) {
	long := "/x/" + strings.Repeat("a", MaxLineLength)
	r := Parse([]byte("user-agent: FooBot\ndisallow: " + long + "\nallow: /\n"))
	require.Len(t, r.Groups, 1)
	require.Len(t, r.Groups[0].Rules, 2)
	got := r.Groups[0].Rules[0].Pattern
	assert.Equal(t, MaxLineLength-len("disallow: "), len(got))
	assert.True(t, strings.HasPrefix(long, got))
	assert.Equal(t, []WarningKind{LineTooLong}, kinds(r))
	assert.Equal(t, 2, r.Warnings[0].Line)

	// Exactly at the limit: used whole, no warning.
	exact := "disallow: " + strings.Repeat("b", MaxLineLength-len("disallow: "))
	r = Parse([]byte("user-agent: a\n" + exact))
	assert.Empty(t, r.Warnings)
	assert.Len(t, r.Groups[0].Rules[0].Pattern, MaxLineLength-len("disallow: "))
}

func TestNULByte(t *testing.T) {
	r := Parse([]byte("User-agent: *\nDisallow: /a\x00/b\nDisallow: /c\n"))
	assert.Equal(t, []Rule{{Pattern: "/a", Line: 2}, {Pattern: "/c", Line: 3}}, rules(r))
	assert.Equal(t, []WarningKind{NULByte}, kinds(r))
}

func TestInvalidUTF8(t *testing.T) {
	r := Parse([]byte("User-agent: *\nDisallow: /\xff\xfe\n"))
	assert.Equal(t, []Rule{{Pattern: "/\xff\xfe", Line: 2}}, rules(r), "kept as bytes; the matcher encodes them")
	assert.Equal(t, []WarningKind{InvalidUTF8}, kinds(r))
}

// RFC 9309 §2.1, §2.2.1 and Google's grouping.
func TestGroups(t *testing.T) {
	t.Run("RFC 9309 §5.1 example", func(t *testing.T) {
		r := Parse([]byte(rfc9309Example))
		require.Len(t, r.Groups, 4)
		assert.Equal(t, []string{"*"}, agentValues(r.Groups[0]))
		assert.Equal(t, []string{"foobot"}, agentValues(r.Groups[1]))
		assert.Equal(t, []string{"barbot", "bazbot"}, agentValues(r.Groups[2]))
		assert.Equal(t, []string{"quxbot"}, agentValues(r.Groups[3]))
		assert.Equal(t, []Rule{
			{Pattern: "*.gif$", Line: 2}, {Pattern: "/example/", Line: 3}, {Allow: true, Pattern: "/publications/", Line: 4},
		}, r.Groups[0].Rules)
		assert.Equal(t, []Rule{
			{Pattern: "/", Line: 7}, {Allow: true, Pattern: "/example/page.html", Line: 8}, {Allow: true, Pattern: "/example/allowed.gif", Line: 9},
		}, r.Groups[1].Rules)
		assert.Len(t, r.Groups[2].Rules, 1)
		assert.Empty(t, r.Groups[3].Rules, "RFC 9309 §2.1: the last group may have no rules")
		assert.Empty(t, r.Warnings)
	})
	t.Run("blank lines do not end a run of user-agents", func(t *testing.T) {
		r := Parse([]byte("User-agent: a\n\n\nUser-agent: b\n\nDisallow: /x\n"))
		require.Len(t, r.Groups, 1)
		assert.Equal(t, []string{"a", "b"}, agentValues(r.Groups[0]))
	})
	t.Run("a user-agent after a rule starts a group", func(t *testing.T) {
		r := Parse([]byte("User-agent: a\nDisallow: /x\nUser-agent: b\nDisallow: /y\n"))
		require.Len(t, r.Groups, 2)
	})
	// RFC 9309 §2.2.4: other records MUST NOT terminate a group.
	t.Run("other records do not end a group", func(t *testing.T) {
		r := Parse([]byte("User-agent: a\nSitemap: http://s\nCrawl-delay: 1\nUser-agent: b\nHost: h\nDisallow: /x\nunknown: z\nAllow: /y\n"))
		require.Len(t, r.Groups, 1)
		assert.Equal(t, []string{"a", "b"}, agentValues(r.Groups[0]))
		assert.Len(t, r.Groups[0].Rules, 2)
	})
	// RFC 9309 §2.2.2: rules before the first user-agent are ignored.
	t.Run("rules outside any group", func(t *testing.T) {
		r := Parse([]byte("Disallow: /x\nAllow: /y\nUser-agent: a\nDisallow: /z\n"))
		require.Len(t, r.Groups, 1)
		assert.Equal(t, []Rule{{Pattern: "/z", Line: 4}}, r.Groups[0].Rules)
		assert.Equal(t, []WarningKind{OutsideGroup, OutsideGroup}, kinds(r))
		assert.Equal(t, []int{1, 2}, []int{r.Warnings[0].Line, r.Warnings[1].Line})
	})
	t.Run("empty user-agent", func(t *testing.T) {
		r := Parse([]byte("User-agent:\nDisallow: /\n"))
		require.Len(t, r.Groups, 1)
		assert.Equal(t, []WarningKind{InvalidValue}, kinds(r))
	})
}

func TestAgent(t *testing.T) {
	tests := []struct {
		value  string
		token  string
		global bool
	}{
		{"*", "", true},
		{"* # all", "", true}, // value is already comment-free; "* x" stands for it
		{"* x", "", true},
		{"*\tx", "", true},
		{"*bot", "", false},
		{"*yacybot*", "", false},
		{"FooBot", "FooBot", false},
		{"FooBot/2.1", "FooBot", false},
		{"Foo Bar", "Foo", false},
		{"AB42bot", "AB", false},
		{"Googlebot-Image", "Googlebot-Image", false},
		{"foo_bar-baz", "foo_bar-baz", false},
		{"42bot", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		a := Agent{Value: tt.value}
		assert.Equal(t, tt.token, a.Token(), "Token(%q)", tt.value)
		assert.Equal(t, tt.global, a.IsGlobal(), "IsGlobal(%q)", tt.value)
	}
}

func TestSitemaps(t *testing.T) {
	r := Parse([]byte("Sitemap: http://a/1.xml\nUser-agent: *\nsitemap: http://a/2.xml\nSitemap: http://a/1.xml\nDisallow: /\nsite-map: http://a/3.xml\nSitemap:\n"))
	assert.Equal(t, []string{"http://a/1.xml", "http://a/2.xml", "http://a/3.xml"}, r.Sitemaps)
	assert.Equal(t, []WarningKind{Misspelling, InvalidValue}, kinds(r))

	// Many sitemaps: deduplication switches to a set.
	var b strings.Builder
	for i := 0; i < 100; i++ {
		b.WriteString("Sitemap: http://a/" + strings.Repeat("x", i%40) + ".xml\n")
	}
	r = Parse([]byte(b.String()))
	assert.Len(t, r.Sitemaps, 40)
	assert.Equal(t, "http://a/.xml", r.Sitemaps[0])
}

// A Crawl-delay binds to the user-agent lines directly above it: those
// named since the previous Crawl-delay of the group, or, once the group has
// rules, its lines that have none yet; the first that binds to a line
// holds. Rules still group as RFC 9309 §2.1 says. The shapes are those of
// the peers' test suites (crawler-commons, robots-parser, texting_robots,
// reppy, CPython's robotparser) and the README's examples.
func TestCrawlDelayBinding(t *testing.T) {
	type delays map[string]time.Duration // user-agent value -> its delay
	for _, tt := range []struct {
		name, body string
		want       delays
		groups     int
	}{
		{"design: each run its own", "User-agent: a\nCrawl-delay: 1\nUser-agent: b\nCrawl-delay: 2\nDisallow: /x\n",
			delays{"a": time.Second, "b": 2 * time.Second}, 1},
		{"design: not the lines after it", "User-agent: foobot\nCrawl-delay: 20\nUser-agent: *\nDisallow: /baz\n",
			delays{"foobot": 20 * time.Second, "*": 0}, 1},
		{"bingbot and msnbot, a blank line between", "User-agent: bingbot\nCrawl-delay: 1\n\nUser-agent: msnbot\nCrawl-delay: 2\n",
			delays{"bingbot": time.Second, "msnbot": 2 * time.Second}, 1},
		{"one delay for a run of lines", "User-agent: a\nUser-agent: b\nCrawl-delay: 3\nDisallow: /\n",
			delays{"a": 3 * time.Second, "b": 3 * time.Second}, 1},
		{"after the rules, the lines without one", "User-agent: a\nCrawl-delay: 1\nUser-agent: b\nDisallow: /\nCrawl-delay: 5\n",
			delays{"a": time.Second, "b": 5 * time.Second}, 1},
		{"after the rules, every line", "User-agent: a\nUser-agent: b\nDisallow: /\nCrawl-delay: 4\n",
			delays{"a": 4 * time.Second, "b": 4 * time.Second}, 1},
		{"the first binds", "User-agent: a\nCrawl-delay: 1\nCrawl-delay: 9\nDisallow: /\n", delays{"a": time.Second}, 1},
		{"groups keep their own", "User-agent: a\nCrawl-delay: 1\nDisallow: /\nUser-agent: b\nDisallow: /\n",
			delays{"a": time.Second, "b": 0}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Parse([]byte(tt.body))
			require.Len(t, r.Groups, tt.groups)
			got := delays{}
			for _, g := range r.Groups {
				for _, a := range g.Agents {
					got[a.Value] = a.CrawlDelay
				}
			}
			assert.Equal(t, tt.want, got)
			// The counting pass places what the storing pass does.
			again := Parse([]byte(tt.body))
			assert.Equal(t, r, again)
		})
	}
}

func TestCrawlDelay(t *testing.T) {
	tests := []struct {
		value string
		want  time.Duration
		ok    bool
	}{
		{"10", 10 * time.Second, true},
		{"0.5", 500 * time.Millisecond, true},
		{"1.25", 1250 * time.Millisecond, true},
		{".5", 500 * time.Millisecond, true},
		{"5.", 5 * time.Second, true},
		{"0", 0, true},
		{"0.0000000001", 0, true},
		{"99999999999999999999999", 1<<63 - 1, true},
		{"9223372036.9", 1<<63 - 1, true},
		{"", 0, false},
		{".", 0, false},
		{"fast", 0, false},
		{"-1", 0, false},
		{"+1", 0, false},
		{"1e3", 0, false},
		{"0x10", 0, false},
		{"NaN", 0, false},
		{"Inf", 0, false},
		{"1,5", 0, false},
		{"1 2", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseSeconds([]byte(tt.value))
		assert.Equal(t, tt.ok, ok, "parseSeconds(%q)", tt.value)
		assert.Equal(t, tt.want, got, "parseSeconds(%q)", tt.value)
	}

	r := Parse([]byte("Crawl-delay: 3\nUser-agent: a\nCrawl-delay: 2.5\nCrawl-delay: 7\nDisallow: /\nUser-agent: b\nCrawl-delay: soon\n"))
	require.Len(t, r.Groups, 2)
	assert.Equal(t, 2500*time.Millisecond, r.Groups[0].Agents[0].CrawlDelay)
	assert.Zero(t, r.Groups[1].Agents[0].CrawlDelay)
	assert.Equal(t, []WarningKind{OutsideGroup, InvalidValue, InvalidValue}, kinds(r))
	assert.Equal(t, []Record{
		{Key: "Crawl-delay", Value: "3", Line: 1},
		{Key: "Crawl-delay", Value: "7", Line: 4},
		{Key: "Crawl-delay", Value: "soon", Line: 7},
	}, r.Other, "records not interpreted are kept")
}

// AIPREF: Content-Usage records belong to the group they appear in.
func TestContentUsage(t *testing.T) {
	r := Parse([]byte("Content-Usage: train-ai=n\nUser-agent: *\nAllow: /\nContent-Usage: train-ai=n, search=y\nContent-Usage: /public/ train-ai=y\nContent-Usage:\n"))
	require.Len(t, r.Groups, 1)
	assert.Equal(t, []ContentUsage{
		{Preferences: "train-ai=n, search=y", Line: 4},
		{Path: "/public/", Preferences: "train-ai=y", Line: 5},
		{Line: 6}, // a rule whose preferences are all unknown (vocab-07 §6.5.1)
	}, r.Groups[0].ContentUsage)
	// RFC 9309 §2.2.2: a rule before any user-agent line is outside every group.
	assert.Equal(t, []WarningKind{OutsideGroup, InvalidValue}, kinds(r))
	assert.Len(t, r.Other, 1)
}

// draft-ietf-aipref-attach-05 §3: "rule =/ content-usage", so Content-Usage
// is a group rule: a user-agent line after it starts a new group, as after
// Allow (aipref.md reading 1). Content-Signal is not a rule and, like any
// other record, does not end the run.
func TestContentUsageIsAGroupRule(t *testing.T) {
	tests := []struct {
		body   string
		groups [][]string // the agents of each group
	}{
		{"User-agent: a\nContent-Usage: train-ai=n\nUser-agent: b\nDisallow: /\n", [][]string{{"a"}, {"b"}}},
		{"User-agent: a\nAllow: /\nUser-agent: b\nDisallow: /\n", [][]string{{"a"}, {"b"}}},
		{"User-agent: a\nContent-Signal: ai-train=no\nUser-agent: b\nDisallow: /\n", [][]string{{"a", "b"}}},
		{"User-agent: a\nCrawl-delay: 1\nUser-agent: b\nDisallow: /\n", [][]string{{"a", "b"}}},
	}
	for _, tt := range tests {
		r := Parse([]byte(tt.body))
		var got [][]string
		for _, g := range r.Groups {
			var agents []string
			for _, a := range g.Agents {
				agents = append(agents, a.Value)
			}
			got = append(got, agents)
		}
		assert.Equal(t, tt.groups, got, "%q", tt.body)
	}
}

// draft-ietf-aipref-attach-05 §3.2: a path is there only when the value
// starts with "/"; it ends at the first SP or HTAB, and the whole run of them
// separates it from the preferences (aipref.md reading 5). The value ends at
// a comment and surrounding white space is not part of it (reading 6).
func TestContentUsageValue(t *testing.T) {
	// The warnings quote the reason usage.Validate gives, word for word.
	notDict := func(why string) string {
		return "content-usage preferences do not parse (not an RFC 9651 dictionary (" + why +
			"): every label is unknown); every usage preference of the rule is unknown"
	}
	tests := []struct {
		line string
		want ContentUsage
		warn []string // messages of InvalidValue warnings
	}{
		{"Content-Usage: train-ai=n", ContentUsage{Preferences: "train-ai=n"}, nil},
		{"Content-Usage: /a/ train-ai=n", ContentUsage{Path: "/a/", Preferences: "train-ai=n"}, nil},
		{"Content-Usage: /a/\t \ttrain-ai=n, search=y", ContentUsage{Path: "/a/", Preferences: "train-ai=n, search=y"}, nil},
		{"content-usage :  /a/ train-ai=n   # comment", ContentUsage{Path: "/a/", Preferences: "train-ai=n"}, nil},
		{"Content-Usage: /a/", ContentUsage{Path: "/a/"}, []string{ // no preferences: all unknown
			"content-usage preferences do not parse (states no preference); every usage preference of the rule is unknown"}},
		{"Content-Usage: * train-ai=n", ContentUsage{Preferences: "* train-ai=n"}, []string{
			`content-usage path must start with "/", not "*"; the whole value was read as preferences`,
			notDict("expected ',' between members")}},
		{"Content-Usage: a/ train-ai=n", ContentUsage{Preferences: "a/ train-ai=n"}, []string{notDict("expected ',' between members")}},
		{"Content-Usage: train-ai=N", ContentUsage{Preferences: "train-ai=N"}, nil},             // a valid Dictionary; the value is unknown
		{"Content-Usage: bots=n, train-ai", ContentUsage{Preferences: "bots=n, train-ai"}, nil}, // Validate's problems, but labels are read
		{"Content-Usage: Train-AI=n", ContentUsage{Preferences: "Train-AI=n"}, []string{notDict("uppercase letter in a key")}},
		{"Content-Usage: train-ai=n,", ContentUsage{Preferences: "train-ai=n,"}, []string{notDict("trailing comma")}},
		{`Content-Usage: /a/ train-ai="n`, ContentUsage{Path: "/a/", Preferences: `train-ai="n`}, []string{notDict("string not closed")}},
		{"Content-Usage:", ContentUsage{}, []string{"empty content-usage; every usage preference it states is unknown"}},
	}
	for _, tt := range tests {
		r := Parse([]byte("User-agent: *\n" + tt.line + "\n"))
		require.Len(t, r.Groups, 1, tt.line)
		tt.want.Line = 2
		assert.Equal(t, []ContentUsage{tt.want}, r.Groups[0].ContentUsage, tt.line)
		var warn []string
		for _, w := range r.Warnings {
			assert.Equal(t, 2, w.Line)
			assert.Equal(t, InvalidValue, w.Kind)
			warn = append(warn, w.Message)
		}
		assert.Equal(t, tt.warn, warn, tt.line)
	}
}

// A valid Content-Usage or Content-Signal line costs what the Robots keeps
// of it, as a Disallow line of the same length does: its value is checked
// without building the problems usage.Validate or usage.ParseSignal would
// list (Validate's cost 4 times the input of a file of Content-Usage lines).
func TestValidRecordsAllocateWhatTheyKeep(t *testing.T) {
	const n = 2000
	// body returns n lines of line(i), in groups of 50, and as many
	// Disallow lines of the same lengths.
	body := func(line func(i int) string) (records, disallows []byte) {
		var rb, db strings.Builder
		for i := range n {
			if i%50 == 0 {
				rb.WriteString("User-agent: a\n")
				db.WriteString("User-agent: a\n")
			}
			l := line(i)
			d := fmt.Sprintf("Disallow: /p%d", i)
			rb.WriteString(l + "\n")
			db.WriteString(d + strings.Repeat("x", len(l)-len(d)) + "\n")
		}
		return []byte(rb.String()), []byte(db.String())
	}
	parse := func(body []byte) func() { return func() { Parse(body) } }
	// The least of a few runs: what else runs meanwhile only adds.
	allocated := func(body []byte) float64 {
		least := int64(math.MaxInt64)
		for range 3 {
			a, _ := sharedtest.Memory(parse(body))
			least = min(least, a)
		}
		return float64(least) / n
	}
	for _, tt := range []struct {
		name string
		line func(i int) string
		size uintptr // of what the Robots keeps for a line, against a Rule
		kept func(r *Robots) int
	}{
		{"Content-Usage", func(i int) string { return fmt.Sprintf("Content-Usage: /p%d train-ai=n, search=y", i) },
			unsafe.Sizeof(ContentUsage{}), func(r *Robots) int {
				k := 0
				for _, g := range r.Groups {
					k += len(g.ContentUsage)
				}
				return k
			}},
		{"Content-Signal", func(int) string { return "Content-Signal: search=yes, ai-train=no" },
			unsafe.Sizeof(ContentSignal{}), func(r *Robots) int { return len(r.ContentSignals) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			records, disallows := body(tt.line)
			require.Len(t, records, len(disallows))
			r := Parse(records)
			require.Equal(t, n, tt.kept(r))
			require.Empty(t, r.Warnings)

			assert.LessOrEqual(t, testing.AllocsPerRun(5, parse(records)), testing.AllocsPerRun(5, parse(disallows))+2,
				"allocations for %d lines, against as many Disallow lines", n)
			// The text and the slices are the same; the records' size may
			// not be.
			more := float64(tt.size) - float64(unsafe.Sizeof(Rule{}))
			assert.LessOrEqual(t, allocated(records), allocated(disallows)+max(more, 0)+4,
				"bytes allocated per line, against a Disallow line")
		})
	}
}

// A warning past MaxWarnings is counted in OmittedWarnings, but a valid
// Content-Usage line has none to count.
func TestContentUsageOmittedWarnings(t *testing.T) {
	body := strings.Repeat("a\n", MaxWarnings) + "User-agent: *\n" +
		"Content-Usage: train-ai=n\nContent-Usage: /a/ train-ai=n\nContent-Usage: train-ai=n,\nContent-Usage: /b/\n"
	r := Parse([]byte(body))
	require.Len(t, r.Warnings, MaxWarnings)
	assert.Equal(t, 2, r.OmittedWarnings, "the trailing comma and the missing preferences")
}

// Likewise a valid Content-Signal line: past MaxWarnings, only the lines
// with a problem count an omitted warning.
func TestContentSignalOmittedWarnings(t *testing.T) {
	body := strings.Repeat("a\n", MaxWarnings) + "User-agent: *\n" +
		"Content-Signal: search=yes, ai-train=no\nContent-Signal: search=maybe\nContent-Signal: ai-input=no\nContent-Signal: bots=no\n"
	r := Parse([]byte(body))
	require.Len(t, r.Warnings, MaxWarnings)
	require.Len(t, r.ContentSignals, 4)
	assert.Equal(t, 2, r.OmittedWarnings, "the value maybe and the unknown name")
}

func TestContentSignal(t *testing.T) {
	r := Parse([]byte("Content-Signal: search=yes\nUser-Agent: *\nContent-Signal: search=yes,ai-train=no\nContent-signal: ai-input=maybe\nAllow: /\n"))
	require.Len(t, r.Groups, 1)
	assert.Equal(t, []ContentSignal{
		{Group: 0, Value: "search=yes,ai-train=no", Line: 3},
		{Group: 0, Value: "ai-input=maybe", Line: 4},
	}, r.ContentSignals)
	assert.Equal(t, []Record{{Key: "Content-Signal", Value: "search=yes", Line: 1}}, r.Other)
	assert.Equal(t, []WarningKind{OutsideGroup, InvalidValue}, kinds(r))
}

func TestContentUsageString(t *testing.T) {
	assert.Equal(t, "Content-Usage: train-ai=n", ContentUsage{Preferences: "train-ai=n"}.String())
	assert.Equal(t, "Content-Usage: /a/ train-ai=n", ContentUsage{Path: "/a/", Preferences: "train-ai=n"}.String())
	assert.Equal(t, "Content-Usage: /a/", ContentUsage{Path: "/a/"}.String())
	assert.Equal(t, "(no rule)", ContentUsage{}.String())
}

func TestOtherRecords(t *testing.T) {
	r := Parse([]byte("Host: example.com\nUser-agent: *\nClean-param: ref /a\nunicorns: /extinct\nNoindex: /x\n"))
	assert.Equal(t, []Record{
		{Key: "Host", Value: "example.com", Line: 1},
		{Key: "Clean-param", Value: "ref /a", Line: 3},
		{Key: "unicorns", Value: "/extinct", Line: 4},
		{Key: "Noindex", Value: "/x", Line: 5},
	}, r.Other)
	assert.Equal(t, []WarningKind{UnknownKey}, kinds(r))
	assert.Equal(t, 4, r.Warnings[0].Line)
	assert.Equal(t, `line 4: unknown key "unicorns"; kept, not interpreted`, r.Warnings[0].String())
}

func TestWarningsForLenientLines(t *testing.T) {
	r := Parse([]byte("useragent: a\nDisallow /x\ndisallaw: /y\nrandom garbage here\n<br />\n"))
	assert.Equal(t, []WarningKind{Misspelling, MissingColon, Misspelling, Unparsable, UnknownKey}, kinds(r))
	assert.Equal(t, []Rule{{Pattern: "/x", Line: 2}, {Pattern: "/y", Line: 3}}, rules(r))
	assert.Equal(t, `"useragent" accepted as user-agent`, r.Warnings[0].Message)
}

func TestWarningKindString(t *testing.T) {
	for k := MissingColon; k <= InvalidValue; k++ {
		assert.NotContains(t, k.String(), "warning-", "kind %d has a name", k)
	}
	assert.Equal(t, "warning-99", WarningKind(99).String())
}

func TestIsValidToken(t *testing.T) {
	for s, want := range map[string]bool{
		"Foobot": true, "Foobot-Bar": true, "Foo_Bar": true,
		"": false, "ツ": false, "Foobot*": false, " Foobot ": false, "Foobot/2.1": false, "Foobot Bar": false, "AB42bot": false,
	} {
		assert.Equal(t, want, IsValidToken(s), "IsValidToken(%q)", s)
	}
}

func TestRuleString(t *testing.T) {
	assert.Equal(t, "Allow: /a", Rule{Allow: true, Pattern: "/a"}.String())
	assert.Equal(t, "Disallow: ", Rule{Line: 3}.String(), "an empty Disallow of a file")
	assert.Equal(t, "(no rule)", Rule{}.String(), "the zero Rule, where a result has no rule")
}

// rfc9309Example is the robots.txt of RFC 9309 §5.1, as the README uses it.
var rfc9309Example = func() string {
	b, err := os.ReadFile("../testdata/rfc9309-example.txt")
	if err != nil {
		panic(err)
	}
	return string(b)
}()
