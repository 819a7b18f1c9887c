package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// usageRobots is the example of draft-ietf-aipref-attach-05 §3.4 (lines 1 to
// 9), with a Content-Signal record in its * group and three more groups: one
// without Content-Usage rules, one whose rule does not parse, and one named
// by seven user-agent lines.
const usageRobots = `User-Agent: *
Allow: /
Disallow: /never/
Content-Usage: train-ai=n
Content-Usage: /ai-ok/ train-ai=y
Content-Signal: search=yes, ai-train=no

User-Agent: ExampleBot
Allow: /
Content-Usage: train-ai=y

User-Agent: NoPrefsBot
Disallow: /private/

User-Agent: BadBot
Content-Usage: train-ai=n,

User-Agent: a
User-Agent: b
User-Agent: c
User-Agent: d
User-Agent: e
User-Agent: f
User-Agent: ManyBot
Content-Usage: search=y, ai-use=n, train-ai=n
`

// rows splits the output of robots usage into its rows: the name, then the
// value after the padding.
func rows(t *testing.T, out string) [][2]string {
	t.Helper()
	var rs [][2]string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		k, v, ok := strings.Cut(l, "  ")
		require.True(t, ok, "a row without a value: %q", l)
		rs = append(rs, [2]string{k, strings.TrimLeft(v, " ")})
	}
	return rs
}

func TestUsageFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "robots.txt")
	require.NoError(t, os.WriteFile(f, []byte(usageRobots), 0o644))
	const signal = "line 6: search=yes, ai-train=no (Cloudflare's record, not AIPREF: not combined with Content-Usage)"
	type row = [2]string
	tests := []struct {
		name string
		args []string // after -file; the URL last
		code int
		rows []row // after URL, agent and robots.txt
	}{
		// attach-05 §3.4, the table's row /test: the * group's path-less rule.
		{"path-less rule", []string{"-agent", "OtherBot", "https://example.com/test"}, 0, []row{
			{"verdict", "ALLOWED: line 2: Allow: /"},
			{"group", "line 1: User-agent: *"},
			{"Content-Usage", "line 4: Content-Usage: train-ai=n"},
			{"preferences", "train-ai=n (search, ai-use unknown)"},
			{"Content-Signal", signal},
		}},
		// attach-05 §3.4, row /ai-ok/test: the longest matching rule states
		// the preferences (§3.1).
		{"longest rule", []string{"-agent", "OtherBot", "/ai-ok/test"}, 0, []row{
			{"verdict", "ALLOWED: line 2: Allow: /"},
			{"group", "line 1: User-agent: *"},
			{"Content-Usage", "line 5: Content-Usage: /ai-ok/ train-ai=y"},
			{"preferences", "train-ai=y (search, ai-use unknown)"},
			{"Content-Signal", signal},
		}},
		// attach-05 §3.4, row /never/test (N/A): "paths that cannot be
		// crawled have no associated usage preferences" (§3). The status
		// is check's for a disallowed URL.
		{"disallowed", []string{"-agent", "OtherBot", "/never/test"}, 1, []row{
			{"verdict", "DISALLOWED: line 3: Disallow: /never/"},
			{"group", "line 1: User-agent: *"},
			{"Content-Usage", "none: a URL the crawler may not fetch has no usage preferences (attach-05 §3)"},
			{"preferences", "none stated: every label unknown"},
			{"Content-Signal", signal},
		}},
		// attach-05 §3.1 and RFC 9309 §2.2.1: ExampleBot's own group
		// applies, not *, so /never/ is open to it and it has no
		// Content-Signal.
		{"-agent selects its group", []string{"-agent", "examplebot", "/never/test"}, 0, []row{
			{"verdict", "ALLOWED: line 9: Allow: /"},
			{"group", "line 8: User-agent: ExampleBot"},
			{"Content-Usage", "line 10: Content-Usage: train-ai=y"},
			{"preferences", "train-ai=y (search, ai-use unknown)"},
		}},
		// vocab-07 §3: without a statement every label is unknown; the *
		// group's rules are not consulted for a crawler with its own group.
		{"no Content-Usage rule", []string{"-agent", "NoPrefsBot", "/public"}, 0, []row{
			{"verdict", "ALLOWED: no rule matched"},
			{"group", "line 12: User-agent: NoPrefsBot"},
			{"Content-Usage", "no rule matches"},
			{"preferences", "none stated: every label unknown"},
		}},
		// vocab-07 §6.5.1: a value that is not a Dictionary states nothing.
		{"a rule that does not parse", []string{"-agent", "BadBot", "/x"}, 0, []row{
			{"verdict", "ALLOWED: no rule matched"},
			{"group", "line 15: User-agent: BadBot"},
			{"Content-Usage", "line 16: Content-Usage: train-ai=n,"},
			{"preferences", "none stated: every label unknown — byte 11: not an RFC 9651 dictionary (trailing comma): every label is unknown"},
		}},
		// vocab-07 §6.1 (-08 for ai-use): all three labels stated, in
		// canonical order.
		{"every label, many agents", []string{"-agent", "ManyBot", "/x"}, 0, []row{
			{"verdict", "ALLOWED: no rule matched"},
			{"group", "line 18: User-agent: a, line 19: User-agent: b, line 20: User-agent: c, line 21: User-agent: d, line 22: User-agent: e, and 2 more"},
			{"Content-Usage", "line 25: Content-Usage: search=y, ai-use=n, train-ai=n"},
			{"preferences", "train-ai=n, search=y, ai-use=n"},
		}},
		// vocab-07 §5.1: robots.txt and the header combine, most
		// restrictively per label: n beats y, y beats unknown.
		{"-header, most restrictive", []string{"-agent", "OtherBot", "-header", "Content-Usage: train-ai=y, search=y", "/test"}, 0, []row{
			{"verdict", "ALLOWED: line 2: Allow: /"},
			{"group", "line 1: User-agent: *"},
			{"Content-Usage", "line 4: Content-Usage: train-ai=n"},
			{"from robots.txt", "train-ai=n (search, ai-use unknown)"},
			{"from header", "train-ai=y, search=y (ai-use unknown; 1 Content-Usage line)"},
			{"preferences", "train-ai=n, search=y (ai-use unknown; the most restrictive of both, per label)"},
			{"Content-Signal", signal},
		}},
		{"-header more restrictive than robots.txt", []string{"-agent", "OtherBot", "-header", "content-usage:train-ai=n", "/ai-ok/x"}, 0, []row{
			{"verdict", "ALLOWED: line 2: Allow: /"},
			{"group", "line 1: User-agent: *"},
			{"Content-Usage", "line 5: Content-Usage: /ai-ok/ train-ai=y"},
			{"from robots.txt", "train-ai=y (search, ai-use unknown)"},
			{"from header", "train-ai=n (search, ai-use unknown; 1 Content-Usage line)"},
			{"preferences", "train-ai=n (search, ai-use unknown; the most restrictive of both, per label)"},
			{"Content-Signal", signal},
		}},
		// attach-05 §2 and RFC 9651 §4.2: the field lines are one
		// Dictionary, so a later line's value wins even when more
		// permissive (vocab-07 §6.5.1); then robots.txt's n wins.
		{"-header lines are one dictionary", []string{"-agent", "OtherBot",
			"-header", "Content-Usage: train-ai=n", "-header", "Content-Usage: train-ai=y, ai-use=y", "/test"}, 0, []row{
			{"verdict", "ALLOWED: line 2: Allow: /"},
			{"group", "line 1: User-agent: *"},
			{"Content-Usage", "line 4: Content-Usage: train-ai=n"},
			{"from robots.txt", "train-ai=n (search, ai-use unknown)"},
			{"from header", "train-ai=y, ai-use=y (search unknown; 2 Content-Usage lines)"},
			{"preferences", "train-ai=n, ai-use=y (search unknown; the most restrictive of both, per label)"},
			{"Content-Signal", signal},
		}},
		{"-header that does not parse", []string{"-agent", "ExampleBot", "-header", "Content-Usage: train-ai=N", "/x"}, 0, []row{
			{"verdict", "ALLOWED: line 9: Allow: /"},
			{"group", "line 8: User-agent: ExampleBot"},
			{"Content-Usage", "line 10: Content-Usage: train-ai=y"},
			{"from robots.txt", "train-ai=y (search, ai-use unknown)"},
			{"from header", "none stated: every label unknown (1 Content-Usage line) — byte 9: train-ai: the value N is not the Token n (tokens compare exactly); the label is unknown"},
			{"preferences", "train-ai=y (search, ai-use unknown; the most restrictive of both, per label)"},
		}},
		// attach-05 §3: robots.txt states nothing for a URL the crawler may
		// not fetch, but the response's header still counts (aipref.md,
		// reading 4).
		{"-header on a disallowed URL", []string{"-agent", "OtherBot", "-header", "Content-Usage: search=n", "/never/x"}, 1, []row{
			{"verdict", "DISALLOWED: line 3: Disallow: /never/"},
			{"group", "line 1: User-agent: *"},
			{"Content-Usage", "none: a URL the crawler may not fetch has no usage preferences (attach-05 §3)"},
			{"from robots.txt", "none stated: every label unknown"},
			{"from header", "search=n (train-ai, ai-use unknown; 1 Content-Usage line)"},
			{"preferences", "search=n (train-ai, ai-use unknown; the most restrictive of both, per label)"},
			{"Content-Signal", signal},
		}},
		// RFC 9309 §2.2.1: no group names the crawler, so the * group's.
		{"default agent", []string{"/"}, 0, []row{
			{"verdict", "ALLOWED: line 2: Allow: /"},
			{"group", "line 1: User-agent: *"},
			{"Content-Usage", "line 4: Content-Usage: train-ai=n"},
			{"preferences", "train-ai=n (search, ai-use unknown)"},
			{"Content-Signal", signal},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", append([]string{"usage", "-file", f}, tt.args...)...)
			assert.Equal(t, tt.code, code, stderr)
			assert.Empty(t, stderr)
			agent := defaultAgent
			for i, a := range tt.args {
				if a == "-agent" {
					agent = tt.args[i+1]
				}
			}
			want := append([]row{{"URL", tt.args[len(tt.args)-1]}, {"agent", agent}, {"robots.txt", f}}, tt.rows...)
			assert.Equal(t, want, rows(t, stdout), stdout)
		})
	}
}

// usageExample is the robots.txt of the README's example of robots usage,
// shipped for users to run it: the example of draft-ietf-aipref-attach-05
// §3.4 with a Content-Signal record.
const usageExample = "cmd/robots/testdata/usage-example.txt" // from the repository's root

// The README's example, as a user sees it, run as the README says: from
// the repository's root, on the shipped file. The header is more
// restrictive for train-ai and states search (vocab-07 §5.1).
func TestUsageREADME(t *testing.T) {
	t.Chdir("../..")
	code, stdout, stderr := runCmd(t, "", "usage", "-file", usageExample, "-agent", "OtherBot", "-header", "Content-Usage: train-ai=n, search=y",
		"https://example.com/ai-ok/page")
	assert.Equal(t, 0, code, stderr)
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	const prompt = "$ robots usage -file " + usageExample + " -agent OtherBot -header 'Content-Usage: train-ai=n, search=y' https://example.com/ai-ok/page\n"
	_, shown, ok := strings.Cut(string(readme), prompt)
	require.True(t, ok, "README.md shows the command %q", prompt)
	shown, _, ok = strings.Cut(shown, "```")
	require.True(t, ok, "the README's example ends its block")
	assert.Equal(t, shown, stdout, "what README.md shows is what the command prints")
	assert.Contains(t, stdout, "Content-Signal   line 6: search=yes, ai-train=no")
}

// The shipped example is the draft's, line for line where the README
// quotes its lines, and holds no mistake.
func TestUsageExampleFile(t *testing.T) {
	t.Chdir("../..")
	body, err := os.ReadFile(usageExample)
	require.NoError(t, err)
	// usageRobots starts with the same * group, attach-05 §3.4's lines 1-5
	// and a Content-Signal record.
	head := strings.SplitAfterN(usageRobots, "\n", 7)
	assert.True(t, strings.HasPrefix(string(body), strings.Join(head[:6], "")), "%s", body)
	assert.Contains(t, string(body), "\nUser-Agent: ExampleBot\nAllow: /\nContent-Usage: train-ai=y\n")
	code, stdout, _ := runCmd(t, "", "lint", usageExample)
	assert.Equal(t, 0, code, "lint finds nothing: %s", stdout)
	assert.Empty(t, stdout)
	// ExampleBot obeys its own group, the file's second.
	code, stdout, _ = runCmd(t, "", "usage", "-file", usageExample, "-agent", "ExampleBot", "https://example.com/never/page")
	assert.Equal(t, 0, code, "ExampleBot's group allows everything")
	assert.Contains(t, stdout, "\nContent-Usage  line 10: Content-Usage: train-ai=y\n")
}

func TestUsageNetwork(t *testing.T) {
	ok := site(t, 200, usageRobots)
	gone := site(t, 404, "")
	down := site(t, 503, "")
	tests := []struct {
		name string
		args []string // the URL last
		code int
		rows map[string]string // some of the rows
		not  []string          // rows that must be missing
	}{
		// attach-05 §3.4, fetched as check fetches: the file's rules apply.
		{"rules", []string{"-agent", "OtherBot", ok.URL + "/ai-ok/page"}, 0, map[string]string{
			"robots.txt":     ok.URL + "/robots.txt (200 OK: success)",
			"verdict":        "ALLOWED: line 2: Allow: /",
			"Content-Usage":  "line 5: Content-Usage: /ai-ok/ train-ai=y",
			"preferences":    "train-ai=y (search, ai-use unknown)",
			"Content-Signal": "line 6: search=yes, ai-train=no (Cloudflare's record, not AIPREF: not combined with Content-Usage)",
		}, nil},
		{"disallowed", []string{"-agent", "OtherBot", ok.URL + "/never/page"}, 1, map[string]string{
			"verdict":       "DISALLOWED: line 3: Disallow: /never/",
			"Content-Usage": "none: a URL the crawler may not fetch has no usage preferences (attach-05 §3)",
			"preferences":   "none stated: every label unknown",
		}, nil},
		// RFC 9309 §2.3.1.3: no robots.txt, no rules, no preferences; the
		// header's stand alone.
		{"404", []string{"-header", "Content-Usage: train-ai=n", gone.URL + "/page"}, 0, map[string]string{
			"robots.txt":      gone.URL + "/robots.txt (404 Not Found: unavailable)",
			"verdict":         "ALLOWED: robots.txt unavailable: allow all (404 Not Found: unavailable)",
			"Content-Usage":   "no rule matches",
			"from robots.txt": "none stated: every label unknown",
			"preferences":     "train-ai=n (search, ai-use unknown; the most restrictive of both, per label)",
		}, []string{"group", "Content-Signal"}},
		// RFC 9309 §2.3.1.4: unreachable, disallow all: no preferences.
		{"503", []string{down.URL + "/page"}, 1, map[string]string{
			"Content-Usage": "none: a URL the crawler may not fetch has no usage preferences (attach-05 §3)",
			"preferences":   "none stated: every label unknown",
		}, []string{"group", "Content-Signal"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", append([]string{"usage"}, tt.args...)...)
			assert.Equal(t, tt.code, code, stderr)
			assert.Empty(t, stderr)
			got := map[string]string{}
			for _, r := range rows(t, stdout) {
				got[r[0]] = r[1]
			}
			assert.Equal(t, tt.args[len(tt.args)-1], got["URL"])
			for k, v := range tt.rows {
				assert.Equal(t, v, got[k], "row %s", k)
			}
			for _, k := range tt.not {
				assert.NotContains(t, got, k)
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	f := filepath.Join(t.TempDir(), "robots.txt")
	require.NoError(t, os.WriteFile(f, []byte(usageRobots), 0o644))
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no URL", nil, "want exactly one URL, got 0"},
		{"two URLs", []string{"-file", f, "/a", "/b"}, "want exactly one URL, got 2"},
		{"invalid URL", []string{"-file", f, "https://e.com:99999/"}, "robots usage: https://e.com:99999/: invalid URL: "},
		{"invalid URL, network", []string{"example.com/a"}, "robots usage: example.com/a: invalid URL: "},
		{"not a URL", []string{"-file", f, "example.com/a"}, "invalid URL"},
		{"unreadable file", []string{"-file", "/nonexistent/robots.txt", "/"}, "no such file"},
		{"invalid agent", []string{"-file", f, "-agent", "Foo/1.0", "/"}, "not a crawler's name"},
		{"-header without a name", []string{"-file", f, "-header", "train-ai=n", "/"},
			`robots usage: -header "train-ai=n": want a Content-Usage field line, such as "Content-Usage: train-ai=n"`},
		{"-header of another field", []string{"-file", f, "-header", "Content-Signal: search=yes", "/"}, "want a Content-Usage field line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", append([]string{"usage"}, tt.args...)...)
			assert.Equal(t, 2, code)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, tt.stderr)
			assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
		})
	}
}

// robots lint reports each problem of each Content-Usage value
// (usage.Validate) and of each Content-Signal value (usage.ParseSignal),
// with its line; the parser's own one-line summary of such a value is not
// repeated.
func TestLintAIPREF(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		body string
		want []string // the report's lines, each a prefix, without the file name; the total last
	}{
		// attach-05 §3.4's example, and Cloudflare's published default.
		{"clean", "User-Agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: train-ai=n\nContent-Usage: /ai-ok/ train-ai=y\n" +
			"Content-Signal: search=yes, ai-train=no\n\nUser-Agent: ExampleBot\nAllow: /\nContent-Usage: train-ai=y, search=y, ai-use=n\n", nil},
		// vocab-07 §6.5.1: not a Dictionary, so nothing is stated.
		{"syntax", "User-agent: *\nContent-Usage: /a train-ai=n,\nContent-Usage: Train-ai=n\n", []string{
			`:2: usage-syntax: not an RFC 9651 dictionary (trailing comma): every label is unknown (byte 11 of "train-ai=n,") — a Content-Usage value is an RFC 9651 Dictionary; one that is not states nothing (vocab-07 §6.5.1)`,
			`:3: usage-syntax: not an RFC 9651 dictionary (uppercase letter in a key): every label is unknown (byte 0 of "Train-ai=n") — `,
			": 2 problems"}},
		// vocab-07 §3: a rule without preferences states nothing; a path
		// alone is no preference (attach-05 §3.2).
		{"empty", "User-agent: *\nContent-Usage:\nContent-Usage: /a/\n", []string{
			":2: usage-empty: states no preference — the rule states nothing: every label is unknown (vocab-07 §3)",
			":3: usage-empty: states no preference — ",
			": 2 problems"}},
		// vocab-07 §6.4: unknown labels are ignored, the others stand.
		{"unknown label", "User-agent: *\nContent-Usage: bots=n, train-ai=y\nContent-Usage: ai-train=n\n", []string{
			":2: usage-unknown-label: bots: a label of an earlier draft of the vocabulary, no longer defined; readers ignore it — the rule's other labels still count (vocab-07 §6.4)",
			":3: usage-unknown-label: ai-train: Content-Signal's name; the AIPREF label is train-ai; readers ignore it — ",
			": 2 problems"}},
		// vocab-07 §6.2, §6.5: only the Tokens y and n.
		{"bad value", "User-agent: *\nContent-Usage: train-ai=\"n\", search=yes, ai-use\n", []string{
			`:2: usage-bad-value: train-ai: the value "n" is a String: write the Token y or n, without quotes; the label is unknown — only the Tokens y and n state a preference (vocab-07 §6.2, §6.5)`,
			":2: usage-bad-value: search: the value yes is not the Token y (tokens compare exactly); the label is unknown — ",
			":2: usage-bad-value: ai-use: a key alone is the Boolean true, not a preference: write ai-use=y or ai-use=n; the label is unknown — ",
			": 3 problems"}},
		// vocab-07 §6.5.1: only the last value of a label counts.
		{"duplicate", "User-agent: *\nContent-Usage: train-ai=n, search=y, train-ai=y\n", []string{
			":2: usage-duplicate: train-ai is given again at byte 22; only the last value counts — even when the last is the more permissive (vocab-07 §6.5.1)",
			": 1 problem"}},
		// attach-05 §3.2: a path starts with "/"; a value starting with "*"
		// is read whole as preferences. The parser's own warning on the line
		// (invalid-value) is not repeated.
		{"wildcard path", "User-agent: *\nContent-Usage: *.pdf train-ai=n\n", []string{
			`:2: usage-syntax: not an RFC 9651 dictionary (expected ',' between members): every label is unknown (byte 6 of "*.pdf train-ai=n") — `,
			`:2: usage-wildcard: a Content-Usage path starts with '/'; a value starting with '*' has no path and is read whole as preferences (byte 0 of "*.pdf train-ai=n") — a path pattern may hold * but starts with / (attach-05 §3.2)`,
			": 2 problems"}},
		// vocab-07 §6.1: labels name categories; there are no wildcards.
		{"wildcard label", "User-agent: *\nContent-Usage: *=n\n", []string{
			`:2: usage-wildcard: "*" is not a label: labels have no wildcards; name each category — a key with * is no label of the vocabulary: readers ignore it (vocab-07 §6.1, §6.4)`,
			": 1 problem"}},
		// RFC 9309 §2.2.2, attach-05 §3: a rule before any group is
		// ignored; the parser says so, and its value is not validated.
		{"outside any group", "Content-Usage: train-ai=n,\nUser-agent: *\nAllow: /\n", []string{
			":1: outside-group: content-usage before any user-agent line; ignored — crawlers ignore rules before the first User-agent line (RFC 9309 §2.2.2)",
			": 1 problem"}},
		// Cloudflare's Content-Signal, read leniently by usage.ParseSignal:
		// each tolerance, parameter, unknown name, bad value and repeat.
		{"Content-Signal", "User-agent: *\nContent-Signal: Search=yes, ai-train=no;v=1, train-ai=no, ai-input=maybe, search=no,\nContent-Signal:\n", []string{
			":2: signal-tolerated: Search read as search: write names in lowercase — lenient readers accept it, stricter ones may not",
			`:2: signal-parameters: parameters ";v=1" are not part of Content-Signal; ignored — Content-Signal defines no parameters`,
			`:2: signal-unknown-label: "train-ai": an AIPREF label, which belongs in Content-Usage, not a Content-Signal name; ignored — Content-Signal has three names: search, ai-input and ai-train`,
			`:2: signal-bad-value: ai-input: the value "maybe" is neither yes nor no; it is unknown — Content-Signal's values are yes and no`,
			":2: signal-duplicate: search is given again at byte 58; only the last counts — state each name once",
			`:2: signal-tolerated: empty member, skipped (byte 68 of "Search=yes, ai-train=no;v=1, train-ai=no, ai-input=maybe, search"…) — `,
			":3: signal-empty: states no signal — the record states nothing",
			": 7 problems"}},
		// A hostile value costs a few lines: the first problems, then a count.
		{"many problems in one value", "User-agent: *\nContent-Usage: " + strings.Repeat("x=n, ", 3000) + "x=n\nContent-Usage: ,\n", append(
			strings.Split(strings.Repeat(":2: usage-unknown-label: x: \n:2: usage-duplicate: x is given again at byte 15000; \n", maxValueProblems/2), "\n")[:maxValueProblems],
			fmt.Sprintf(":2: more: %d more problems of this value, not listed — lint lists the first %d problems of a value", 2*3000+1-maxValueProblems, maxValueProblems),
			":3: usage-syntax: ",
			": 6002 problems")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := filepath.Join(dir, "robots.txt")
			require.NoError(t, os.WriteFile(f, []byte(tt.body), 0o644))
			code, stdout, stderr := runCmd(t, "", "lint", f)
			assert.Empty(t, stderr)
			if tt.want == nil {
				assert.Equal(t, 0, code)
				assert.Empty(t, stdout)
				return
			}
			assert.Equal(t, 1, code)
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			require.Len(t, lines, len(tt.want), stdout)
			for i, w := range tt.want {
				assert.True(t, strings.HasPrefix(lines[i], "robots.txt"+w), "line %d:\n\t%q\ndoes not start with\n\t%q", i, lines[i], "robots.txt"+w)
			}
			assert.NotContains(t, stdout, "invalid-value", "the parser's summary of a value lint validates")
		})
	}
}
