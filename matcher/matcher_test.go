package matcher_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/internal/sharedtest"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
)

func compile(body string, agents ...string) *matcher.Matcher {
	return matcher.Compile(parser.Parse([]byte(body)), agents...)
}

// bothForms compiles r into the trie and, when its text fits, into a small
// set, however many rules it holds: Compile chooses by the number of rules,
// and the two must agree on every path.
func bothForms(r *parser.Robots, agents ...string) []*matcher.Matcher {
	return []*matcher.Matcher{matcher.CompileTrie(r, agents...), matcher.CompileSmall(r, agents...)}
}

type check struct {
	path    string
	allowed bool
}

func runChecks(t *testing.T, m *matcher.Matcher, checks []check) {
	t.Helper()
	for _, c := range checks {
		assert.Equal(t, c.allowed, m.Allowed(c.path), "Allowed(%q)", c.path)
	}
}

// rfc9309Example is the robots.txt of RFC 9309 §5.1, as the README uses it.
var rfc9309Example = func() string {
	b, err := os.ReadFile("../testdata/rfc9309-example.txt")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// RFC 9309 §5.1.
func TestRFC9309SimpleExample(t *testing.T) {
	tests := []struct {
		agent  string
		checks []check
	}{
		{"unknownbot", []check{
			{"/", true}, {"/a.gif", false}, {"/x/y.gif", false}, {"/y.gif?x", true},
			{"/example/", false}, {"/example/page.html", false}, {"/publications/", true},
			{"/publications/a.gif", true}, // the longer allow wins over *.gif$
		}},
		{"foobot", []check{
			{"/", false}, {"/example/page.html", true}, {"/example/page.html?x", true}, {"/example/allowed.gif", true},
			{"/example/", false}, {"/publications/", false}, {"/a.gif", false},
		}},
		{"barbot", []check{{"/example/page.html", false}, {"/example/", true}, {"/a.gif", true}}},
		{"BazBot", []check{{"/example/page.html", false}, {"/example/other", true}}},
		{"quxbot", []check{{"/", true}, {"/example/page.html", true}, {"/a.gif", true}}},
	}
	for _, tt := range tests {
		t.Run(tt.agent, func(t *testing.T) {
			runChecks(t, compile(rfc9309Example, tt.agent), tt.checks)
		})
	}
}

// RFC 9309 §5.2: the longest match wins, whatever the order.
func TestLongestMatch(t *testing.T) {
	for _, body := range []string{
		"User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n",
		"User-Agent: foobot\nDisallow: /example/page/disallowed.gif\nAllow: /example/page/\n",
	} {
		m := compile(body, "foobot")
		runChecks(t, m, []check{
			{"/example/page/disallowed.gif", false},
			{"/example/page/allowed.gif", true},
			{"/example/page/", true},
			{"/example/", true},
		})
		res := m.Match("/example/page/disallowed.gif")
		assert.Equal(t, matcher.RuleMatched, res.Reason)
		assert.Equal(t, "/example/page/disallowed.gif", res.Rule.Pattern)
	}
}

func TestMatching(t *testing.T) {
	tests := []struct {
		name   string
		rules  string
		checks []check
	}{
		// RFC 9309 §2.2.2: if allow and disallow are equivalent, allow wins.
		{"tie goes to allow", "Disallow: /a\nAllow: /a", []check{{"/a", true}, {"/ab", true}}},
		{"tie by octets, not text", "Disallow: /a*\nAllow: /ab", []check{{"/ab", true}, {"/ac", false}}},
		{"stars count as octets", "Allow: /a\nDisallow: /*a", []check{{"/a", false}}},
		// RFC 9309 §2.2.2: matching is case-sensitive and starts at the
		// first octet of the path.
		{"case-sensitive", "Disallow: /Private", []check{{"/Private/x", false}, {"/private/x", true}}},
		{"from the first octet", "Disallow: private", []check{{"/private", true}}},
		{"scheme in rule matches nothing", "Disallow: http://e/x", []check{{"/x", true}}},
		// Empty patterns match nothing.
		{"empty disallow", "Disallow:", []check{{"/", true}, {"/x", true}}},
		{"empty allow does not override", "Disallow: /\nAllow:", []check{{"/x", false}}},
		// RFC 9309 §2.2.3: '*' and '$'.
		{"star", "Disallow: /a/*/c", []check{{"/a/b/c", false}, {"/a//c", false}, {"/a/c", true}, {"/a/b/c/d", false}}},
		{"leading star", "Disallow: *.gif$", []check{{"/x.gif", false}, {"/a/b.gif", false}, {"/x.gif?y", true}, {"/x.GIF", true}}},
		{"star alone", "Disallow: *", []check{{"/", false}, {"/anything", false}}},
		{"dollar", "Disallow: /a$", []check{{"/a", false}, {"/ab", true}, {"/a?x", true}}},
		{"dollar alone", "Disallow: $", []check{{"/", true}}},
		{"star dollar", "Disallow: /a*$", []check{{"/a", false}, {"/abc", false}, {"/b", true}}},
		{"trailing star", "Disallow: /a*", []check{{"/a", false}, {"/ab", false}, {"/b", true}}},
		{"many stars", "Disallow: /a***b", []check{{"/ab", false}, {"/axxb", false}, {"/a", true}}},
		{"inner dollar is literal", "Disallow: /a$b", []check{{"/a$b", false}, {"/a%24b", false}, {"/ab", true}}},
		{"double dollar", "Disallow: /a$$", []check{{"/a$", false}, {"/a$b", true}, {"/a", true}}},
		{"query", "Disallow: /*?", []check{{"/a?b", false}, {"/a", true}, {"/?", false}}},
		{"query anchored", "Disallow: /*?$", []check{{"/a?", false}, {"/a?b", true}}},
		{"star across slashes", "Disallow: /*/private/", []check{{"/a/b/private/c", false}, {"/private/", true}}},
		{"anchored suffix overlaps head", "Disallow: /ab*b$", []check{{"/ab", true}, {"/abb", false}, {"/abxb", false}}},
		{"segments in order", "Disallow: /*a*b*c", []check{{"/abc", false}, {"/cba", true}, {"/xaybzc", false}, {"/ab", true}}},
		{"greedy is enough", "Disallow: /*ab*ab$", []check{{"/abab", false}, {"/aab", true}, {"/xabxab", false}, {"/ab", true}}},
		// RFC 9309 §2.2.2 Figure 4: percent-encoding.
		{"fig4 non-ASCII rule", "Disallow: /foo/bar/ツ", []check{{"/foo/bar/%E3%83%84", false}, {"/foo/bar/ツ", false}, {"/foo/bar/%e3%83%84", false}}},
		{"fig4 encoded rule", "Disallow: /foo/bar/%E3%83%84", []check{{"/foo/bar/ツ", false}}},
		{"fig4 unreserved escape", "Disallow: /foo/bar/%62%61%7A", []check{{"/foo/bar/baz", false}, {"/foo/bar/%62az", false}}},
		{"fig4 reserved escape stays", "Disallow: /a%2Fb", []check{{"/a%2fb", false}, {"/a/b", true}}},
		{"query escapes", "Disallow: /s?q=https%3A%2F%2F", []check{{"/s?q=https%3A%2F%2Ffoo.bar", false}, {"/s?q=https://foo.bar", true}}},
		// RFC 9309 §2.2.3 Figure 6.
		{"fig6 star", "Disallow: /path/file-with-a-%2A.html", []check{{"/path/file-with-a-*.html", false}, {"/path/file-with-a-x.html", true}}},
		{"fig6 dollar", "Disallow: /path/foo-%24", []check{{"/path/foo-$", false}, {"/path/foo-", true}}},
		// Google: Allow /x/index.html also allows /x/.
		{"index.html", "Disallow: /\nAllow: /allowed-slash/index.html", []check{
			{"/allowed-slash/", true}, {"/allowed-slash/index.html", true}, {"/allowed-slash/?x", false}, {"/allowed-slash/other", false}, {"/anyother-url", false},
		}},
		{"index.htm", "Disallow: /\nAllow: /a/index.htm", []check{{"/a/", true}}},
		{"index.html5", "Disallow: /\nAllow: /a/index.html5", []check{{"/a/", true}}},
		{"index with star", "Disallow: /\nAllow: /*/index.html", []check{{"/x/", true}, {"/x/y/", true}, {"/x", false}}},
		{"not for disallow", "Disallow: /a/index.html", []check{{"/a/", true}}},
		{"not when named otherwise", "Disallow: /\nAllow: /a/myindex.html", []check{{"/a/", false}}},
		// RFC 9309 §2.2.2: /robots.txt is implicitly allowed.
		{"robots.txt", "Disallow: /", []check{{"/robots.txt", true}, {"/robots.txt?x", false}, {"/robots.txtx", false}, {"/robots%2Etxt", true}}},
		{"fragment ignored", "Disallow: /a$", []check{{"/a#frag", false}}},
		{"empty path is root", "Disallow: /$", []check{{"", false}, {"?x", true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := "User-agent: *\n" + tt.rules + "\n"
			m := compile(body, "bot")
			runChecks(t, m, tt.checks)
			r := parser.Parse([]byte(body))
			for _, c := range tt.checks {
				ref, _ := refVerdict(r, []string{"bot"}, c.path)
				assert.Equal(t, c.allowed, ref, "reference matcher disagrees with the table on %q", c.path)
			}
		})
	}
}

// RFC 9309 §2.2.1 and Google's group selection.
func TestGroupSelection(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		agents []string
		checks []check
		reason matcher.Reason
	}{
		{"case-insensitive", "User-agent: FooBot\nDisallow: /\n", []string{"foobot"}, []check{{"/x", false}}, matcher.RuleMatched},
		{"token of the line", "User-agent: FooBot/2.1\nDisallow: /\n", []string{"FooBot"}, []check{{"/x", false}}, matcher.RuleMatched},
		{"line token stops at a digit", "User-agent: Bot2\nDisallow: /\n", []string{"Bot"}, []check{{"/x", false}}, matcher.RuleMatched},
		{"AB42bot is never AB", "User-agent: AB\nDisallow: /\n", []string{"AB42bot"}, []check{{"/x", true}}, matcher.NoGroup},
		{"AB42bot obeys AB42bot", "User-agent: AB42bot\nDisallow: /\n", []string{"AB42bot"}, []check{{"/x", false}}, matcher.RuleMatched},
		{"AB obeys AB42bot, as Google reads the line", "User-agent: AB42bot\nDisallow: /\n", []string{"AB"}, []check{{"/x", false}}, matcher.RuleMatched},
		{"Foo Bar is Foo", "User-agent: Foo Bar\nDisallow: /\n", []string{"Foo"}, []check{{"/x", false}}, matcher.RuleMatched},
		{"no substring match", "User-agent: Googlebot-Image\nDisallow: /\n", []string{"Googlebot"}, []check{{"/x", true}}, matcher.NoGroup},
		// A full User-Agent product counts as its token (issue 11 item 7).
		{"caller Foo/1.0 is Foo", "User-agent: Foo\nDisallow: /\n", []string{"Foo/1.0"}, []check{{"/x", false}}, matcher.RuleMatched},
		// RFC 9309 §2.2.1 Figure 2: groups naming the crawler merge.
		{"merge", "User-agent: ExampleBot\nDisallow: /foo\nDisallow: /bar\n\nUser-agent: ExampleBot\nDisallow: /baz\n",
			[]string{"ExampleBot"}, []check{{"/foo", false}, {"/bar", false}, {"/baz", false}, {"/qux", true}}, matcher.RuleMatched},
		// RFC 9309 §2.2.1 Figure 3: otherwise the * group.
		{"star group", "User-agent: *\nDisallow: /foo\nDisallow: /bar\n\nUser-agent: BazBot\nDisallow: /baz\n",
			[]string{"ExampleBot"}, []check{{"/foo", false}, {"/baz", true}}, matcher.RuleMatched},
		{"star groups merge", "User-agent: *\nDisallow: /a\nUser-agent: x\nDisallow: /b\nUser-agent: *\nDisallow: /c\n",
			[]string{"bot"}, []check{{"/a", false}, {"/b", true}, {"/c", false}}, matcher.RuleMatched},
		{"star with comment-like tail", "User-agent: * all\nDisallow: /\n", []string{"bot"}, []check{{"/x", false}}, matcher.RuleMatched},
		{"*bot is not global", "User-agent: *bot\nDisallow: /\n", []string{"bot"}, []check{{"/x", true}}, matcher.NoGroup},
		// Google: a specific group, even an empty one, hides the * groups.
		{"empty specific group", "User-agent: *\nDisallow: /\nUser-agent: bot\n", []string{"bot"}, []check{{"/x", true}}, matcher.NoRuleMatched},
		{"empty disallow in specific", "User-agent: *\nDisallow: /\nUser-agent: bot\nDisallow:\n", []string{"bot"}, []check{{"/x", true}}, matcher.NoRuleMatched},
		// RFC 9309 §2.2.1: no group and no * group: no rules apply.
		{"no group", "User-agent: other\nDisallow: /\n", []string{"bot"}, []check{{"/x", true}}, matcher.NoGroup},
		{"empty file", "", []string{"bot"}, []check{{"/x", true}}, matcher.NoGroup},
		// Several tokens: groups naming any of them merge.
		{"family tokens", "User-agent: Googlebot\nDisallow: /a\nUser-agent: Googlebot-News\nDisallow: /b\nUser-agent: *\nDisallow: /c\n",
			[]string{"Googlebot-News", "Googlebot"}, []check{{"/a", false}, {"/b", false}, {"/c", true}}, matcher.RuleMatched},
		{"no tokens", "User-agent: *\nDisallow: /a\n", nil, []check{{"/a", false}}, matcher.RuleMatched},
		// RFC 9309 §2.2.2: rules outside any group are ignored.
		{"rules before any group", "Disallow: /a\nUser-agent: *\nDisallow: /b\n", []string{"bot"}, []check{{"/b", false}, {"/a", true}}, matcher.RuleMatched},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := compile(tt.body, tt.agents...)
			runChecks(t, m, tt.checks)
			assert.Equal(t, tt.reason, m.Match(tt.checks[0].path).Reason)
		})
	}
}

func TestResult(t *testing.T) {
	m := compile("User-agent: a\nUser-agent: b\nCrawl-delay: 2\nDisallow: /x\nAllow: /x/y\nDisallow: /x\n\nUser-agent: A\nCrawl-delay: 5\n", "a")
	assert.Equal(t, matcher.Result{Allowed: false, Reason: matcher.RuleMatched,
		Rule: parser.Rule{Pattern: "/x", Line: 4}}, m.Match("/x/z"), "the first of equal rules is reported")
	assert.Equal(t, matcher.Result{Allowed: true, Reason: matcher.RuleMatched,
		Rule: parser.Rule{Allow: true, Pattern: "/x/y", Line: 5}}, m.Match("/x/y"))
	assert.Equal(t, matcher.Result{Allowed: true, Reason: matcher.NoRuleMatched}, m.Match("/z"))
	assert.Equal(t, matcher.Result{Allowed: true, Reason: matcher.RobotsTxt}, m.Match("/robots.txt"))
	assert.Equal(t, []parser.Agent{{Value: "a", Line: 1, CrawlDelay: 2 * time.Second}, {Value: "b", Line: 2, CrawlDelay: 2 * time.Second},
		{Value: "A", Line: 8, CrawlDelay: 5 * time.Second}}, m.Agents(), "each line with the Crawl-delay bound to it")
	assert.Equal(t, 5*time.Second, m.CrawlDelay(), "the largest delay of the merged groups")

	// The index.html rule reports the Allow line it comes from.
	m = compile("User-agent: *\nDisallow: /\nAllow: /d/index.html\n", "a")
	assert.Equal(t, parser.Rule{Allow: true, Pattern: "/d/index.html", Line: 3}, m.Match("/d/").Rule)

	assert.Equal(t, matcher.Result{Allowed: true, Reason: matcher.NoGroup}, matcher.Compile(nil, "a").Match("/x"))
	assert.Empty(t, matcher.Compile(nil).Agents())
	assert.Zero(t, matcher.Compile(nil).CrawlDelay())
}

// A crawler's Crawl-delay is that of the user-agent lines that name it,
// which a Crawl-delay binds to when it follows them directly; across the
// groups that apply, the largest.
func TestCrawlDelayOfTheCrawler(t *testing.T) {
	for _, tt := range []struct {
		body  string
		agent string
		want  time.Duration
	}{
		{"User-agent: foobot\nCrawl-delay: 20\nUser-agent: *\nDisallow: /baz\n", "foobot", 20 * time.Second},
		{"User-agent: foobot\nCrawl-delay: 20\nUser-agent: *\nDisallow: /baz\n", "otherbot", 0},
		{"User-agent: bingbot\nCrawl-delay: 1\n\nUser-agent: msnbot\nCrawl-delay: 2\n", "msnbot", 2 * time.Second},
		{"User-agent: bingbot\nCrawl-delay: 1\n\nUser-agent: msnbot\nCrawl-delay: 2\n", "bingbot", time.Second},
		{"User-agent: a\nCrawl-delay: 1\nUser-agent: b\nCrawl-delay: 2\nDisallow: /x\n", "b", 2 * time.Second},
		{"User-agent: a\nCrawl-delay: 3\nDisallow: /\n\nUser-agent: a\nUser-agent: b\nCrawl-delay: 7\n", "a", 7 * time.Second},
		{"User-agent: *\nCrawl-delay: 4\nUser-agent: x\nDisallow: /\n", "y", 4 * time.Second},
	} {
		r := parser.Parse([]byte(tt.body))
		m := matcher.Compile(r, tt.agent)
		assert.Equal(t, tt.want, m.CrawlDelay(), "%q for %s", tt.body, tt.agent)
		// Agents reports each line with its own Crawl-delay, as the
		// parser reads it.
		var want []parser.Agent
		for _, g := range r.Groups {
			for _, a := range g.Agents {
				for _, b := range m.Agents() {
					if b.Line == a.Line {
						want = append(want, a)
					}
				}
			}
		}
		assert.Equal(t, want, m.Agents(), "%q for %s", tt.body, tt.agent)
	}
}

func TestReasonString(t *testing.T) {
	for _, r := range []matcher.Reason{matcher.NoGroup, matcher.NoRuleMatched, matcher.RuleMatched, matcher.RobotsTxt} {
		assert.NotEqual(t, "unknown reason", r.String())
	}
	assert.Equal(t, "unknown reason", matcher.Reason(0).String())
}

// randomRobots builds a robots.txt from a small alphabet so that rules
// overlap, tie and interact often.
func randomRobots(rng *rand.Rand, nGroups, nRules int) string {
	agents := []string{"*", "bot", "Bot/2", "other", "* x"}
	var b strings.Builder
	for g := 0; g < nGroups; g++ {
		fmt.Fprintf(&b, "User-agent: %s\n", agents[rng.IntN(len(agents))])
		for r := 0; r < nRules; r++ {
			key := "Disallow"
			if rng.IntN(2) == 0 {
				key = "Allow"
			}
			fmt.Fprintf(&b, "%s: %s\n", key, randomPattern(rng))
		}
	}
	return b.String()
}

func randomPattern(rng *rand.Rand) string {
	const alpha = "/ab*$%2?.index.htm"
	n := rng.IntN(8)
	var b strings.Builder
	if rng.IntN(5) > 0 {
		b.WriteByte('/')
	}
	for i := 0; i < n; i++ {
		b.WriteByte(alpha[rng.IntN(len(alpha))])
	}
	return b.String()
}

func randomPath(rng *rand.Rand) string {
	const alpha = "/ab*$%2?.x"
	n := rng.IntN(10)
	var b strings.Builder
	b.WriteByte('/')
	for i := 0; i < n; i++ {
		b.WriteByte(alpha[rng.IntN(len(alpha))])
	}
	return b.String()
}

// The compiled matcher agrees with the reference on random files.
func TestAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for i := 0; i < 2000; i++ {
		body := randomRobots(rng, 1+rng.IntN(3), rng.IntN(8))
		r := parser.Parse([]byte(body))
		m := matcher.Compile(r, "bot")
		forms := bothForms(r, "bot")
		for j := 0; j < 20; j++ {
			path := randomPath(rng)
			want, line := refVerdict(r, []string{"bot"}, path)
			got := m.Match(path)
			for _, f := range forms {
				require.Equal(t, got, f.Match(path), "the trie and the small set agree")
			}
			require.Equal(t, got, matcher.MatchOnce(r, path, "bot"), "MatchOnce agrees with Compile")
			require.Equal(t, got, m.MatchIndexed(path), "the path index agrees with the direct search")
			require.Equal(t, got.Allowed, m.Allowed(path), "Allowed agrees with Match")
			require.Equal(t, want, got.Allowed, "%q on\n%s", path, body)
			require.Equal(t, line, got.Rule.Line, "deciding line for %q on\n%s", path, body)
		}
	}
}

// Google's index.html rule on wildcard patterns: "Allow: /*a*/index.html"
// also allows what "/*a*/$" matches. Its pattern ends inside a piece of the
// rule's, which the compiled set keeps apart while it is built; the
// matcher agrees with the reference, directly and through the path index,
// with rules repeated, nested and anchored.
func TestIndexRuleWildcardsAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	piece := func() string {
		const alpha = "ab/*"
		var b strings.Builder
		for range rng.IntN(5) {
			b.WriteByte(alpha[rng.IntN(len(alpha))])
		}
		return b.String()
	}
	for range 1000 {
		var b strings.Builder
		b.WriteString("User-agent: *\nDisallow: /\n")
		var rules []string
		for range 1 + rng.IntN(8) {
			r := "/" + piece() + "*" + piece() + "/index.htm" + []string{"", "l", "l$", "*", "l*x"}[rng.IntN(5)]
			if rng.IntN(4) == 0 && len(rules) > 0 {
				r = rules[rng.IntN(len(rules))] // the same rule again
			}
			rules = append(rules, r)
			key := "Allow"
			if rng.IntN(4) == 0 {
				key = "Disallow"
			}
			fmt.Fprintf(&b, "%s: %s\n", key, r)
		}
		body := b.String()
		r := parser.Parse([]byte(body))
		m := matcher.Compile(r, "bot")
		forms := bothForms(r, "bot")
		for range 30 {
			path := "/" + strings.ReplaceAll(piece()+piece(), "*", "") + []string{"/", "/index.html", "a/", "/x"}[rng.IntN(4)]
			want, line := refVerdict(r, []string{"bot"}, path)
			got := m.Match(path)
			for _, f := range forms {
				require.Equal(t, got, f.Match(path), "the trie and the small set agree")
			}
			require.Equal(t, want, got.Allowed, "%q on\n%s", path, body)
			require.Equal(t, line, got.Rule.Line, "deciding line for %q on\n%s", path, body)
			require.Equal(t, got, m.MatchIndexed(path), "the path index agrees with the direct search")
		}
	}
}

// Property: the order of the rules never changes a verdict.
func TestRuleOrderDoesNotMatter(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 500; i++ {
		var lines []string
		for j := 0; j < 1+rng.IntN(10); j++ {
			key := "Disallow"
			if rng.IntN(2) == 0 {
				key = "Allow"
			}
			lines = append(lines, key+": "+randomPattern(rng))
		}
		a := compile("User-agent: *\n"+strings.Join(lines, "\n"), "bot")
		rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
		b := compile("User-agent: *\n"+strings.Join(lines, "\n"), "bot")
		for j := 0; j < 30; j++ {
			p := randomPath(rng)
			require.Equal(t, a.Allowed(p), b.Allowed(p), "%q on %q", p, lines)
		}
	}
}

// Property: two groups for one agent equal one merged group (RFC 9309 §2.2.1).
func TestGroupsMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 500; i++ {
		var one, two []string
		for j := 0; j < 1+rng.IntN(6); j++ {
			one = append(one, "Disallow: "+randomPattern(rng))
			two = append(two, "Allow: "+randomPattern(rng))
		}
		split := compile("User-agent: bot\n"+strings.Join(one, "\n")+"\nUser-agent: other\nDisallow: /\nUser-agent: BOT\n"+strings.Join(two, "\n"), "bot")
		merged := compile("User-agent: bot\n"+strings.Join(append(one, two...), "\n"), "bot")
		for j := 0; j < 30; j++ {
			p := randomPath(rng)
			require.Equal(t, merged.Allowed(p), split.Allowed(p), "%q", p)
		}
	}
}

// The compiled matcher agrees with the reference on every file of the real
// corpus, for paths made from the file's own patterns.
func TestCorpusAgainstReference(t *testing.T) {
	files := sharedtest.Corpus(t)
	checked := 0
	for name, body := range files {
		r := parser.Parse(body)
		paths := pathsFrom(r)
		for _, agents := range [][]string{{"Googlebot"}, {"UnknownBot"}} {
			m := matcher.Compile(r, agents...)
			ref := newReference(r, agents)
			for _, p := range paths {
				want, line := ref.verdict(p)
				got := m.Match(p)
				if once := matcher.MatchOnce(r, p, agents...); once != got {
					t.Fatalf("%s, %v, %q: MatchOnce %+v, Compile %+v", name, agents, p, once, got)
				}
				if ix := m.MatchIndexed(p); ix != got {
					t.Fatalf("%s, %v, %q: path index %+v, direct %+v", name, agents, p, ix, got)
				}
				if got.Allowed != want || got.Rule.Line != line || m.Allowed(p) != want {
					t.Fatalf("%s, %v, %q: got %v (line %d), reference %v (line %d)", name, agents, p, got.Allowed, got.Rule.Line, want, line)
				}
				checked++
			}
		}
	}
	t.Logf("%d verdicts checked", checked)
}

// pathsFrom derives paths that hit a file's rules: patterns with their stars
// filled and their anchor dropped, and variants one octet off; spread over
// the file, fewer for large files, as the reference matcher is slow.
func pathsFrom(r *parser.Robots) []string {
	var all []parser.Rule
	for _, g := range r.Groups {
		all = append(all, g.Rules...)
	}
	paths := []string{"/", "/index.html", "/search?q=x"}
	n := min(16, max(2, 2000/max(1, len(all)))) // rules × paths stays bounded
	step := max(1, len(all)/n)
	for i := 0; i < len(all); i += step {
		p := strings.TrimSuffix(strings.ReplaceAll(all[i].Pattern, "*", "x/"), "$")
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // a path, not a URL: Match reads input without a leading '/' as a URL
		}
		paths = append(paths, p, p+"z", p+"?q=1", strings.TrimSuffix(p, "/"))
	}
	return paths
}

// Hostile patterns and paths cost a check steps linear in the path: the
// wildcard search never backtracks, a summary of the path rules out at once
// the wildcard rules whose octets it lacks, a plain match prunes the
// wildcard rules it beats, and plain rules cost a walk of the trie whatever
// their number. The cost is counted in steps of work (Matcher.Steps), not
// timed: a count does not depend on the machine, and a search that went
// quadratic in the path (33M steps for 8 KiB) is far past every bound.
func TestHostileMatching(t *testing.T) {
	path8k := "/" + strings.Repeat("a", 8<<10)
	stars20 := "/" + strings.Repeat("*a", 20) + "*b"
	linear := func(path string) int { return 4 * len(path) } // the walk, and a search or a summary of the path
	tests := []struct {
		name     string
		body     func() string
		path     string
		allow    bool
		maxSteps int
	}{
		{"20 stars against 8 KiB", func() string { return "User-agent: *\nDisallow: " + stars20 + "\n" }, path8k, true, linear(path8k)},
		{"20 stars anchored", func() string { return "User-agent: *\nDisallow: " + stars20 + "$\n" }, path8k, true, linear(path8k)},
		{"1000 stars", func() string { return "User-agent: *\nDisallow: /" + strings.Repeat("*a", 1000) + "*b\n" }, path8k, true, linear(path8k)},
		{"1000 wildcard rules against 8 KiB", func() string {
			var b strings.Builder
			b.WriteString("User-agent: *\n")
			for i := 0; i < 1000; i++ {
				fmt.Fprintf(&b, "Disallow: /*a*%d\n", i)
			}
			return b.String()
		}, path8k, true, linear(path8k)},
		{"100 000 plain rules", func() string {
			var b strings.Builder
			b.WriteString("User-agent: *\n")
			for i := 0; i < 100_000; i++ {
				fmt.Fprintf(&b, "Disallow: /a%d\n", i)
			}
			return b.String()
		}, "/a99999/x", false, linear("/a99999/x")},
		{"deep trie", func() string {
			var b strings.Builder
			b.WriteString("User-agent: *\n")
			for i := 1; i <= 2000; i++ {
				fmt.Fprintf(&b, "Allow: /%s\nDisallow: /%s*b\n", strings.Repeat("a", i), strings.Repeat("a", i))
			}
			return b.String()
		}, path8k, true, linear(path8k)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := parser.Parse([]byte(tt.body()))
			// A file of a few rules is compiled small (see Compile): its
			// steps are bounded as the trie's.
			for _, m := range []*matcher.Matcher{matcher.Compile(r, "bot"), matcher.CompileTrie(r, "bot")} {
				assert.Equal(t, tt.allow, m.Allowed(tt.path))
				steps := m.Steps(tt.path)
				assert.LessOrEqual(t, steps, tt.maxSteps, "steps of a check of %d octets", len(tt.path))
				assert.Positive(t, steps, "steps are counted")
			}
		})
	}
}

// The shapes built to make a check slow (hostile_test.go), at a quarter of
// the body cap against a path of 8 KiB, cost a check steps linear in the
// file and the path: at most 8 a octet of either, beyond the octets the
// direct search may scan. A search of the path per rule (4,000 rules and
// more, 8 KiB each) or per piece would be tens of millions; BenchmarkHostile
// times the same shapes at the full cap.
func TestHostileSteps(t *testing.T) {
	for _, c := range hostileCases(bodyCap/4, pathCap) {
		t.Run(c.name, func(t *testing.T) {
			m := matcher.Compile(parser.Parse(c.body), "ExampleBot")
			steps := m.Steps(c.path)
			assert.LessOrEqual(t, steps, 8*(len(c.body)+len(c.path))+matcher.DirectBudget, "%d octets of file, %d of path", len(c.body), len(c.path))
			assert.Positive(t, steps, "steps are counted")
			// The verdict counted is the one the path index alone reaches
			// (TestHostileAgainstReference checks both at a smaller scale).
			assert.Equal(t, m.Match(c.path), m.MatchIndexed(c.path))
		})
	}
}

// Matching allocates nothing for paths that fit the stack buffer, canonical
// or not.
func TestMatchDoesNotAllocate(t *testing.T) {
	m := compile(rfc9309Example, "foobot")
	for _, p := range []string{"/example/page.html", "/ツ/a*b$c%7e?q=%2f", "/x.gif"} {
		assert.Zero(t, testing.AllocsPerRun(100, func() { m.Match(p) }), p)
	}
}

// The trie agrees with the reference where nodes have many children (more
// than eight are searched a word of edges at a time, and a match can be in
// any octet of any word), and where a shorter pattern, inherited down the
// trie, beats a longer node's own: "/a*" outranks "/ab" by its octets
// (RFC 9309 §2.2.2), and an Allow a Disallow of the same length.
func TestWideTrieAgainstReference(t *testing.T) {
	withAndWithoutBlocks(t, wideTrieAgainstReference)
}

func wideTrieAgainstReference(t *testing.T) {
	const wide = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ-_.~"
	rng := rand.New(rand.NewPCG(11, 13))
	piece := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = wide[rng.IntN(len(wide))]
		}
		return string(b)
	}
	for i := 0; i < 300; i++ {
		var b strings.Builder
		b.WriteString("User-agent: *\n")
		for range 1 + rng.IntN(200) {
			key := []string{"Allow", "Disallow"}[rng.IntN(2)]
			p := "/" + piece(rng.IntN(4))
			switch rng.IntN(6) {
			case 0:
				p += "*"
			case 1:
				p += "$"
			case 2:
				p += "*" + piece(1)
			}
			fmt.Fprintf(&b, "%s: %s\n", key, p)
		}
		body := b.String()
		r := parser.Parse([]byte(body))
		m := matcher.Compile(r, "bot")
		forms := bothForms(r, "bot")
		for range 40 {
			path := "/" + piece(rng.IntN(5))
			want, line := refVerdict(r, []string{"bot"}, path)
			got := m.Match(path)
			for _, f := range forms {
				require.Equal(t, got, f.Match(path), "the trie and the small set agree")
			}
			require.Equal(t, want, got.Allowed, "%q on\n%s", path, body)
			require.Equal(t, line, got.Rule.Line, "deciding line for %q on\n%s", path, body)
		}
	}
}

// A rule whose pattern is not in canonical form is matched by its canonical
// form and reported as written, whatever its length and its neighbours.
func TestRewrittenPatternsReportedAsWritten(t *testing.T) {
	long := "/" + strings.Repeat("é", 300) // 601 octets written, 1801 canonical
	rules := []string{"/ä", "/%7e", long, "/a%2fb", "/plain", "/ö*x$"}
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for _, p := range rules {
		fmt.Fprintf(&b, "Disallow: %s\n", p)
	}
	m := compile(b.String())
	for i, path := range []string{"/ä/x", "/~", long + "/y", "/a%2Fb", "/plain", "/öabx"} {
		res := m.Match(path)
		assert.Equal(t, parser.Rule{Pattern: rules[i], Line: i + 2}, res.Rule, path)
	}
}

// A large file's plain rule is not kept as text: the trie spells it, and a
// match reports it from the path it matched, in canonical form, whatever
// form the path came in (RFC 9309 §2.2.2). It is the rule as written, as
// the small form reports it.
func TestTrieReportsPlainRulesFromThePath(t *testing.T) {
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for i := range 60 { // more than a small set holds
		fmt.Fprintf(&b, "Disallow: /filler/%d/\n", i)
	}
	b.WriteString("Disallow: /caf%C3%A9/menu\nAllow: /shop/\nDisallow: /shop/cart\nDisallow: /a%2Fb\nDisallow: /ä\nDisallow: /x*y\n")
	r := parser.Parse([]byte(b.String()))
	m := matcher.Compile(r, "bot")
	require.False(t, m.IsSmall())
	small := matcher.CompileSmall(r, "bot")
	for path, want := range map[string]string{
		"/café/menu/today":              "/caf%C3%A9/menu",
		"/caf%c3%a9/menu":               "/caf%C3%A9/menu",
		"/caf%C3%A9/menu?x=1":           "/caf%C3%A9/menu",
		"https://h.example/shop/cart#f": "/shop/cart",
		"https://h.example/shop/?q=ü":   "/shop/",
		"/a%2fb/c":                      "/a%2Fb",
		"/ä/x":                          "/ä",
		"/filler/17/x":                  "/filler/17/",
		"/x-and-y":                      "/x*y",
		"/%66iller/3/":                  "/filler/3/",
	} {
		got := m.Match(path)
		assert.Equal(t, want, got.Rule.Pattern, path)
		assert.Equal(t, small.Match(path), got, path)
	}
	// A canonical path's rule is a substring of it: nothing is allocated.
	for _, path := range []string{"/caf%C3%A9/menu/today", "/shop/cart", "/filler/5/x"} {
		assert.Zero(t, testing.AllocsPerRun(100, func() { m.Match(path) }), path)
	}
	// Of another path, the rule alone is copied: one allocation of its
	// octets, not of the path's.
	long := "/café/menu/" + strings.Repeat("x", 400)
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() { m.Match(long) }))
	var res matcher.Result
	allocated, _ := sharedtest.Memory(func() {
		for range 1000 {
			res = m.Match(long)
		}
	})
	assert.Less(t, allocated/1000, int64(64), "a copy of the pattern, not of the path")
	assert.Equal(t, "/caf%C3%A9/menu", res.Rule.Pattern)
}
