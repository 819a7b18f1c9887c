package main

import (
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
	const signal = "search=yes, ai-train=no (Cloudflare's record, not AIPREF: not combined with Content-Usage)"
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

// The output as a user sees it: aligned rows.
func TestUsageLayout(t *testing.T) {
	f := filepath.Join(t.TempDir(), "robots.txt")
	require.NoError(t, os.WriteFile(f, []byte(usageRobots), 0o644))
	code, stdout, _ := runCmd(t, "", "usage", "-file", f, "-agent", "ExampleBot", "-header", "Content-Usage: train-ai=n", "https://example.com/post")
	assert.Equal(t, 0, code)
	assert.Equal(t, ""+
		"URL              https://example.com/post\n"+
		"agent            ExampleBot\n"+
		"robots.txt       "+f+"\n"+
		"verdict          ALLOWED: line 9: Allow: /\n"+
		"group            line 8: User-agent: ExampleBot\n"+
		"Content-Usage    line 10: Content-Usage: train-ai=y\n"+
		"from robots.txt  train-ai=y (search, ai-use unknown)\n"+
		"from header      train-ai=n (search, ai-use unknown; 1 Content-Usage line)\n"+
		"preferences      train-ai=n (search, ai-use unknown; the most restrictive of both, per label)\n", stdout)
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
			"Content-Signal": "search=yes, ai-train=no (Cloudflare's record, not AIPREF: not combined with Content-Usage)",
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
		{"invalid agent", []string{"-file", f, "-agent", "Foo/1.0", "/"}, "not a product token"},
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
