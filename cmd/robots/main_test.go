package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// runCmd runs the command line and returns its exit status and outputs.
func runCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(stdin), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

const rfcExample = "../../testdata/rfc9309-example.txt"

func TestUsage(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string
		stderr   string
		noStdout bool
	}{
		{"no arguments", nil, 2, "", "Usage:", true},
		{"help", []string{"help"}, 0, "robots check [flags] URL...", "", false},
		{"-h", []string{"-h"}, 0, "robots lint [flags] PATH|URL", "", false},
		{"help check", []string{"help", "check"}, 0, "Exit status: 0 when every URL is allowed", "", false},
		{"help lint", []string{"help", "lint"}, 0, "Exit status: 0 when there is nothing to report", "", false},
		{"help unknown", []string{"help", "nope"}, 2, "", `no command "nope"`, true},
		{"unknown command", []string{"crawl"}, 2, "", `no command "crawl"`, true},
		{"check -h", []string{"check", "-h"}, 0, "-agent string", "", false},
		{"fetch -h", []string{"fetch", "-h"}, 0, "Exit status: 0 when the site answered", "", false},
		{"lint -h", []string{"lint", "-h"}, 0, "-timeout duration", "", false},
		{"-h names usage", []string{"-h"}, 0, "robots usage [flags] URL", "", false},
		{"help usage", []string{"help", "usage"}, 0, "Exit status: 0 when the crawler may fetch URL, 1 when it may not", "", false},
		{"usage -h", []string{"usage", "-h"}, 0, "-header value", "", false},
		// A crawler's name may hold digits and dots, as the library reads it.
		{"check -agent takes names", []string{"check", "-h"}, 0, "the crawler's name, as its User-Agent starts: ExampleBot, MJ12bot, Mail.RU_Bot (letters, digits", "", false},
		{"usage -agent takes names", []string{"usage", "-h"}, 0, "the crawler's name, as its User-Agent starts: ExampleBot, MJ12bot, Mail.RU_Bot (letters, digits", "", false},
		{"bad flag", []string{"check", "-nope"}, 2, "", "flag provided but not defined: -nope", true},
		{"bad duration", []string{"check", "-timeout", "soon", "https://e.com/"}, 2, "", "invalid value", true},
		{"invalid agent", []string{"check", "-file", rfcExample, "-agent", "Foo/1.0", "/"}, 2, "", "not a crawler's name", true},
		{"unreadable file", []string{"check", "-file", "/nonexistent/robots.txt", "/"}, 2, "", "no such file", true},
		{"fetch without URL", []string{"fetch"}, 2, "", "want exactly one URL", true},
		{"fetch two URLs", []string{"fetch", "https://a.com/", "https://b.com/"}, 2, "", "want exactly one URL", true},
		{"fetch invalid URL", []string{"fetch", "example.com"}, 2, "", "not http or https", true},
		{"fetch ftp", []string{"fetch", "ftp://example.com/"}, 2, "", "not http or https", true},
		{"lint nothing", []string{"lint"}, 2, "", "want exactly one file or URL", true},
		{"lint unreadable", []string{"lint", "/nonexistent/robots.txt"}, 2, "", "no such file", true},
		{"lint invalid URL", []string{"lint", "https://"}, 2, "", "no host", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", tt.args...)
			assert.Equal(t, tt.code, code)
			assert.Contains(t, stdout, tt.stdout)
			assert.Contains(t, stderr, tt.stderr)
			if tt.noStdout {
				assert.Empty(t, stdout)
			}
		})
	}
}

// Usage is printed once, on stdout for -h and on stderr after a bad flag:
// flag's own call of Usage during Parse must not print it a second time.
func TestUsageOnce(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stdout bool // the usage on stdout, else on stderr
	}{
		{[]string{"check", "-h"}, 0, true},
		{[]string{"fetch", "-h"}, 0, true},
		{[]string{"lint", "-h"}, 0, true},
		{[]string{"lint", "-help"}, 0, true},
		{[]string{"check", "-nope"}, 2, false},
		{[]string{"fetch", "-timeout", "soon"}, 2, false},
		{[]string{"usage", "-h"}, 0, true},
		{[]string{"usage", "-header"}, 2, false},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", tt.args...)
			assert.Equal(t, tt.code, code)
			assert.Equal(t, 1, strings.Count(stdout+stderr, "Usage: robots "+tt.args[0]), "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			assert.Equal(t, 1, strings.Count(stdout+stderr, "\nFlags:\n"))
			if tt.stdout {
				assert.Contains(t, stdout, "Usage:")
				assert.Empty(t, stderr)
			} else {
				assert.Contains(t, stderr, "Usage:")
				assert.Empty(t, stdout)
			}
		})
	}
}

// The README's quickstart, and the RFC 9309 §5.1 example's verdicts.
func TestCheckFile(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
	}{
		{"quickstart", []string{"-agent", "foobot", "https://example.com/example/page.html"}, 0,
			"ALLOWED     https://example.com/example/page.html  line 8: Allow: /example/page.html\n"},
		{"disallowed", []string{"-agent", "foobot", "https://example.com/other"}, 1,
			"DISALLOWED  https://example.com/other  line 7: Disallow: /\n"},
		{"several, in order", []string{"-agent", "barbot", "/example/page.html", "/example/other.html", "/robots.txt"}, 1,
			"DISALLOWED  /example/page.html  line 13: Disallow: /example/page.html\n" +
				"ALLOWED     /example/other.html  no rule matched\n" +
				"ALLOWED     /robots.txt  robots.txt is always allowed\n"},
		{"default agent: the * group", []string{"https://example.com/x.gif", "https://example.com/publications/"}, 1,
			"DISALLOWED  https://example.com/x.gif  line 2: Disallow: *.gif$\n" +
				"ALLOWED     https://example.com/publications/  line 4: Allow: /publications/\n"},
		{"quxbot's empty group", []string{"-agent", "QuxBot", "https://example.com/x.gif"}, 0,
			"ALLOWED     https://example.com/x.gif  no rule matched\n"},
		{"raw non-ASCII is encoded", []string{"-agent", "foobot", "https://example.com/ツ"}, 1,
			"DISALLOWED  https://example.com/ツ  line 7: Disallow: /\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", append([]string{"check", "-file", rfcExample}, tt.args...)...)
			assert.Equal(t, tt.code, code)
			assert.Equal(t, tt.stdout, stdout)
			assert.Empty(t, stderr)
		})
	}
}

// check -file and the library agree on which URLs are valid: the command
// asks the library, so a URL is an ERROR line exactly when Client.Allowed
// fails with ErrInvalidURL, and is otherwise decided. Invalid ones do not
// stop the others.
func TestCheckValidityIsTheLibrarys(t *testing.T) {
	rc, err := robots.New(robots.Options{UserAgent: "foobot/1.0"})
	require.NoError(t, err)
	gone, cancel := context.WithCancel(context.Background())
	cancel() // a valid URL then fails with the context's error, before any fetch
	long := "https://example.com/" + strings.Repeat("a", 8200-len("https://example.com/"))
	tests := []struct {
		url   string
		valid bool // what the library says, checked below
		line  string
	}{
		{"https://example.com/example/page.html", true, "ALLOWED     https://example.com/example/page.html  line 8: Allow: /example/page.html"},
		// net/url refuses a malformed escape, and so does the library.
		{"https://e.com/%zz", false, "ERROR       https://e.com/%zz  invalid URL: "},
		{"https://e.com:99999/", false, "ERROR       https://e.com:99999/  invalid URL: "},
		{"https://e.com:0/", false, "ERROR       https://e.com:0/  invalid URL: "},
		{long, false, "ERROR       " + long + "  invalid URL: "},
		{"example.com/a", false, "ERROR       example.com/a  invalid URL: "},
		{"ftp://x/", false, "ERROR       ftp://x/  invalid URL: "},
		{"https:///nohost", false, "ERROR       https:///nohost  invalid URL: "},
		{"http://[fe80::1%25eth0]/", false, "ERROR       http://[fe80::1%25eth0]/  invalid URL: "},
		{"HTTPS://Example.COM:443/example/page.html", true, "ALLOWED     HTTPS://Example.COM:443/example/page.html  line 8: "},
		{"https://user:pw@example.com/example/page.html#top", true, "ALLOWED     https://user:pw@example.com/example/page.html#top  line 8: "},
		{"https://example.com?q=1", true, "DISALLOWED  https://example.com?q=1  line 7: "},
		{"https://example.com", true, "DISALLOWED  https://example.com  line 7: "},
		// The authority ends at the first '/': host "us", path "/er@example.com/".
		{"https://us/er@example.com/", true, "DISALLOWED  https://us/er@example.com/  line 7: "},
	}
	var args []string
	for _, tt := range tests {
		_, err := rc.Allowed(gone, tt.url)
		require.Error(t, err)
		assert.Equal(t, !tt.valid, errors.Is(err, robots.ErrInvalidURL), "the library on %.80s: %v", tt.url, err)
		args = append(args, tt.url)
	}
	code, stdout, stderr := runCmd(t, "", append([]string{"check", "-file", rfcExample, "-agent", "foobot"}, args...)...)
	assert.Equal(t, 2, code)
	assert.Empty(t, stderr)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, len(tests))
	for i, tt := range tests {
		assert.True(t, strings.HasPrefix(lines[i], tt.line), "%.120q does not start with %.120q", lines[i], tt.line)
	}
}

func TestCheckNoGroup(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "robots.txt")
	require.NoError(t, os.WriteFile(f, []byte("User-agent: other\nDisallow: /\n"), 0o644))
	code, stdout, _ := runCmd(t, "", "check", "-file", f, "-agent", "mybot", "/x")
	assert.Equal(t, 0, code)
	assert.Equal(t, "ALLOWED     /x  no group for mybot and no * group\n", stdout)
}

func TestCheckStdin(t *testing.T) {
	in := "https://example.com/example/page.html\n\n  /example/x  \r\nnot a url\n" + "/" + strings.Repeat("a", maxLine+10) + "\n/publications/\n"
	code, stdout, stderr := runCmd(t, in, "check", "-file", rfcExample, "-agent", "foobot")
	assert.Equal(t, 2, code, "an invalid line makes the status 2")
	assert.Empty(t, stderr)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, 5, "one line per non-blank input line, in order")
	assert.True(t, strings.HasPrefix(lines[0], "ALLOWED     https://example.com/example/page.html"))
	assert.True(t, strings.HasPrefix(lines[1], "DISALLOWED  /example/x  line 7"))
	assert.True(t, strings.HasPrefix(lines[2], "ERROR       not a url"))
	assert.Contains(t, lines[3], fmt.Sprintf("line longer than %d bytes", maxLine))
	assert.True(t, strings.HasPrefix(lines[4], "DISALLOWED  /publications/"))

	// Without a final newline, and all allowed.
	code, stdout, _ = runCmd(t, "/example/page.html", "check", "-file", rfcExample, "-agent", "foobot")
	assert.Equal(t, 0, code)
	assert.Equal(t, "ALLOWED     /example/page.html  line 8: Allow: /example/page.html\n", stdout)
}

func TestCheckJSON(t *testing.T) {
	code, stdout, _ := runCmd(t, "/example/page.html\n/nope\nexample.com\n/robots.txt\n", "check", "-file", rfcExample, "-agent", "foobot", "-json")
	assert.Equal(t, 2, code)
	var got []map[string]any
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), sc.Text())
		got = append(got, m)
	}
	require.Len(t, got, 4)
	assert.Equal(t, map[string]any{"url": "/example/page.html", "allowed": true, "reason": "rule matched",
		"rule": map[string]any{"allow": true, "pattern": "/example/page.html", "line": float64(8)}}, got[0])
	assert.Equal(t, map[string]any{"url": "/nope", "allowed": false, "reason": "rule matched",
		"rule": map[string]any{"allow": false, "pattern": "/", "line": float64(7)}}, got[1])
	assert.Equal(t, "example.com", got[2]["url"])
	assert.Contains(t, got[2]["error"], "invalid URL")
	assert.NotContains(t, got[2], "allowed")
	assert.Equal(t, map[string]any{"url": "/robots.txt", "allowed": true, "reason": "robots.txt is always allowed"}, got[3])
}

// site serves robots.txt with the given status and body.
func site(t *testing.T, status int, body string, header ...string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/robots.txt" {
			http.Error(w, "not this", http.StatusTeapot)
			return
		}
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestCheckNetwork(t *testing.T) {
	ok := site(t, 200, "User-agent: *\nDisallow: /private\n", "Cache-Control", "max-age=600")
	gone := site(t, 404, "")
	down := site(t, 503, "")

	code, stdout, stderr := runCmd(t, "", "check", "-agent", "ExampleBot", ok.URL+"/public", ok.URL+"/private/x", gone.URL+"/private", down.URL+"/")
	assert.Equal(t, 1, code)
	assert.Empty(t, stderr)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, 4)
	assert.Equal(t, "ALLOWED     "+ok.URL+"/public  no rule matched", lines[0])
	assert.Equal(t, "DISALLOWED  "+ok.URL+"/private/x  line 2: Disallow: /private", lines[1])
	assert.Equal(t, "ALLOWED     "+gone.URL+"/private  robots.txt unavailable: allow all (404 Not Found: unavailable)", lines[2])
	assert.True(t, strings.HasPrefix(lines[3], "DISALLOWED  "+down.URL+"/  robots.txt unreachable: disallow all (503 Service Unavailable: unreachable, since "), lines[3])

	code, stdout, _ = runCmd(t, "", "check", "-json", ok.URL+"/private/x", "ftp://nope/")
	assert.Equal(t, 2, code)
	var d map[string]any
	sc := bufio.NewScanner(strings.NewReader(stdout))
	require.True(t, sc.Scan())
	require.NoError(t, json.Unmarshal(sc.Bytes(), &d))
	assert.Equal(t, false, d["allowed"])
	assert.Equal(t, float64(200), d["status"])
	assert.Equal(t, ok.URL+"/robots.txt", d["robots_url"])
	assert.NotEmpty(t, d["fresh_until"])
	require.True(t, sc.Scan())
	assert.Contains(t, sc.Text(), `{"url":"ftp://nope/","error":"invalid URL: `)
}

func TestFetch(t *testing.T) {
	body := "User-agent: *\nCrawl-delay: 2\nDisallow: /a\nAllow: /b\n\nUser-agent: Googlebot\nUser-agent: Bingbot\nDisallow:\nSitemap: https://e.com/s.xml\nDissallow: /typo\n"
	ok := site(t, 200, body, "Cache-Control", "max-age=3600")
	redirect := httptest.NewServer(http.RedirectHandler(ok.URL+"/robots.txt", http.StatusMovedPermanently))
	t.Cleanup(redirect.Close)
	down := site(t, 503, "", "Retry-After", "120")
	gone := site(t, 404, "")

	code, stdout, stderr := runCmd(t, "", "fetch", redirect.URL+"/some/page")
	assert.Equal(t, 0, code, stderr)
	for _, want := range []string{
		"robots.txt   " + redirect.URL + "/robots.txt",
		"redirect     301 " + redirect.URL + "/robots.txt -> " + ok.URL + "/robots.txt",
		"final URL    " + ok.URL + "/robots.txt",
		"status       200",
		"outcome      rules, success",
		"(1h0m0s: Cache-Control: max-age)",
		fmt.Sprintf("size         %d bytes", len(body)),
		"2 groups",
		"line 1: user-agent * (crawl-delay 2s): 2 rules (1 allow, 1 disallow)",
		"line 6: user-agent Googlebot, Bingbot: 2 rules (0 allow, 2 disallow)",
		"1 sitemap\n  https://e.com/s.xml",
		"1 warning\n  line 10: misspelling: \"Dissallow\" accepted as disallow",
	} {
		assert.Contains(t, stdout, want)
	}

	code, stdout, _ = runCmd(t, "", "fetch", down.URL)
	assert.Equal(t, 1, code, "unreachable")
	assert.Contains(t, stdout, "outcome      disallow all, unreachable")
	assert.Contains(t, stdout, "(Retry-After)")

	code, stdout, _ = runCmd(t, "", "fetch", gone.URL+"/x")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "outcome      allow all, unavailable")
	assert.NotContains(t, stdout, "groups", "no file, no groups")
}

// Counts read as English: "1 problem", "2 problems", "1 rule".
func TestCounts(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		f := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(f, []byte(body), 0o644))
		return f
	}
	one := write("one.txt", "User-agent: *\nDissallow: /a\n")
	two := write("two.txt", "User-agent: *\nDissallow: /a\nNoindex: /b\n")
	eleven := write("eleven.txt", "User-agent: *\nContent-Usage: a=n, b=n, c=n, d=n, e=n, f=n, g=n, h=n, i=n, j=n, k=n\n") // 11 unknown labels
	tests := []struct {
		name string
		args []string
		want []string
		not  []string
	}{
		{"lint, one problem", []string{"lint", one}, []string{"one.txt: 1 problem\n"}, []string{"problems"}},
		{"lint, two problems", []string{"lint", two}, []string{"two.txt: 2 problems\n"}, nil},
		{"lint, one more problem", []string{"lint", eleven}, []string{
			"eleven.txt:2: more: 1 more problem of this value, not listed — ", "eleven.txt: 11 problems\n"}, []string{"1 more problems"}},
		{"fetch, one of each", []string{"fetch", site(t, 200, "User-agent: *\nDisallow: /a\nSitemap: https://e.com/s.xml\n").URL},
			[]string{"\n1 group\n", "1 rule (0 allow, 1 disallow)", "\n1 sitemap\n", "\n0 warnings\n"},
			[]string{"1 groups", "1 rules", "1 sitemaps"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stdout, stderr := runCmd(t, "", tt.args...)
			assert.Empty(t, stderr)
			for _, w := range tt.want {
				assert.Contains(t, stdout, w)
			}
			for _, n := range tt.not {
				assert.NotContains(t, stdout, n)
			}
		})
	}
}

// The parser keeps its first MaxWarnings warnings and counts the rest in
// OmittedWarnings: lint and fetch count them too, and say they are not
// listed.
func TestOmittedWarningsAreCounted(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		omitted int
		lint    []string
		fetch   []string
	}{
		{0, []string{fmt.Sprintf("robots.txt: %d problems\n", parser.MaxWarnings)},
			[]string{fmt.Sprintf("\n%d warnings\n", parser.MaxWarnings)}},
		{1, []string{
			fmt.Sprintf("robots.txt:%d: more: 1 more warning on later lines, not listed — the parser keeps the first %d warnings of a file; fix these and lint again\n", parser.MaxWarnings+1, parser.MaxWarnings),
			fmt.Sprintf("robots.txt: %d problems\n", parser.MaxWarnings+1)},
			[]string{fmt.Sprintf("\n%d warnings\n", parser.MaxWarnings+1),
				fmt.Sprintf("  ... and 1 more warning past the first %d, which the parser counts but does not keep\n", parser.MaxWarnings)}},
		{37, []string{
			fmt.Sprintf("robots.txt:%d: more: 37 more warnings on later lines, not listed — ", parser.MaxWarnings+1),
			fmt.Sprintf("robots.txt: %d problems\n", parser.MaxWarnings+37)},
			[]string{fmt.Sprintf("\n%d warnings\n", parser.MaxWarnings+37),
				fmt.Sprintf("  ... and %d more warnings (robots fetch -all lists them all)\n", parser.MaxWarnings-screenful),
				fmt.Sprintf("  ... and 37 more warnings past the first %d, which the parser counts but does not keep\n", parser.MaxWarnings)}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.omitted), func(t *testing.T) {
			var b strings.Builder
			b.WriteString("User-agent: *\n")
			for i := range parser.MaxWarnings + tt.omitted {
				fmt.Fprintf(&b, "Dissallow: /p%d\n", i) // a misspelling each: a warning
			}
			f := filepath.Join(dir, "robots.txt")
			require.NoError(t, os.WriteFile(f, []byte(b.String()), 0o644))
			code, stdout, stderr := runCmd(t, "", "lint", f)
			assert.Equal(t, 1, code, stderr)
			for _, w := range tt.lint {
				assertHas(t, stdout, w)
			}
			assert.Equal(t, parser.MaxWarnings+min(tt.omitted, 1)+1, strings.Count(stdout, "\n"), "a line per kept warning, one for the rest, the total")

			code, stdout, stderr = runCmd(t, "", "fetch", site(t, 200, b.String()).URL)
			assert.Equal(t, 0, code, stderr)
			for _, w := range tt.fetch {
				assertHas(t, stdout, w)
			}
			if tt.omitted == 0 {
				assert.NotContains(t, stdout, "does not keep")
			}
		})
	}
}

// A file with 18,963 groups (as real ones have) is summarized past a
// screenful of each list; -all lists everything.
func TestFetchSummarizes(t *testing.T) {
	const groups, sitemaps, warnings, agents = 18_963, 25, 30, 12
	// Short lines, and the sitemaps and warnings first, keep it all under
	// the 500 KiB crawlers read.
	var b strings.Builder
	for i := range agents {
		fmt.Fprintf(&b, "User-agent: bot%c\n", 'a'+i)
	}
	for range warnings {
		b.WriteString("Dissallow: /x\n")
	}
	for i := range sitemaps {
		fmt.Fprintf(&b, "Sitemap: https://e.com/%d.xml\n", i)
	}
	for i := 1; i < groups; i++ {
		fmt.Fprintf(&b, "user-agent:%c%c%c%c\nallow:/\n", 'a'+i/17576, 'a'+i/676%26, 'a'+i/26%26, 'a'+i%26)
	}
	require.Less(t, b.Len(), maxBytes)
	srv := site(t, 200, b.String())

	tests := []struct {
		name     string
		args     []string
		maxLines int
		want     []string
		lines    map[string]int // how many lines start with each prefix
	}{
		{"a screenful of each", []string{"fetch", srv.URL}, 100,
			[]string{
				"\n18963 groups\n",
				"user-agent bota, botb, botc, botd, bote, and 7 more: 30 rules",
				"  ... and 18943 more groups (robots fetch -all lists them all)\n",
				"\n25 sitemaps\n", "  ... and 5 more sitemaps",
				"\n30 warnings\n", "  ... and 10 more warnings",
			},
			map[string]int{"  line ": screenful + screenful, "  https://e.com/": screenful}},
		{"-all", []string{"fetch", "-all", srv.URL}, groups + sitemaps + warnings + 100,
			[]string{"user-agent bota, botb, botc, botd, bote, botf, botg, both, boti, botj, botk, botl: 30 rules"},
			map[string]int{"  line ": groups + warnings, "  https://e.com/": sitemaps, "  ... and": 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", tt.args...)
			require.Equal(t, 0, code, stderr)
			lines := strings.Split(stdout, "\n")
			assert.LessOrEqual(t, len(lines), tt.maxLines)
			for _, w := range tt.want {
				assert.Contains(t, stdout, w)
			}
			for prefix, n := range tt.lines {
				got := 0
				for _, l := range lines {
					if strings.HasPrefix(l, prefix) {
						got++
					}
				}
				assert.Equal(t, n, got, "lines starting %q", prefix)
			}
		})
	}
}

// Decision.Rule (and matcher.Result.Rule) is the zero Rule when no rule
// decided; printed, it must not read as the line "Disallow: ".
func TestDecisionRuleWhenNoneMatched(t *testing.T) {
	ok := site(t, 200, "User-agent: *\nDisallow: /private\n")
	others := site(t, 200, "User-agent: otherbot\nDisallow: /\n")
	gone := site(t, 404, "")
	rc, err := robots.New(robots.Options{UserAgent: "ExampleBot/1.0"})
	require.NoError(t, err)
	tests := []struct {
		url    string
		reason robots.Reason
		rule   string
	}{
		{ok.URL + "/private/x", robots.RuleMatched, "Disallow: /private"},
		{ok.URL + "/public", robots.NoRuleMatched, "(no rule)"},
		{others.URL + "/x", robots.NoGroup, "(no rule)"},
		{gone.URL + "/x", robots.Unavailable, "(no rule)"},
		{ok.URL + "/robots.txt", robots.RobotsTxt, "(no rule)"},
	}
	for _, tt := range tests {
		t.Run(tt.reason.String(), func(t *testing.T) {
			d, err := rc.Check(context.Background(), tt.url)
			require.NoError(t, err)
			require.Equal(t, tt.reason, d.Reason)
			assert.Equal(t, tt.rule, fmt.Sprint(d.Rule))
			assert.Equal(t, tt.rule, d.Rule.String())
		})
	}
	res := matcher.Compile(parser.Parse([]byte("User-agent: *\nDisallow: /a\n")), "bot").Match("/b")
	require.Equal(t, matcher.NoRuleMatched, res.Reason)
	assert.Equal(t, "(no rule)", res.Rule.String())
}

func TestLintFile(t *testing.T) {
	code, stdout, stderr := runCmd(t, "", "lint", "../../testdata/lint-example.txt")
	assert.Equal(t, 1, code)
	assert.Empty(t, stderr)
	want := []string{
		"lint-example.txt:2: outside-group: ",
		"lint-example.txt:5: misspelling: \"Dissallow\" accepted as disallow — ",
		"lint-example.txt:6: missing-colon: ",
		"lint-example.txt:8: never-wins: Disallow: /search is the same rule as line 7; it never wins — ",
		"lint-example.txt:9: never-wins: Disallow: /account/ is always beaten by line 10 (Allow: /account/) — of an Allow and a Disallow of equal length, the Allow wins",
		"lint-example.txt:11: never-wins: Disallow: /promo is always beaten by line 12 (Allow: /promo*) — a longer rule",
		"lint-example.txt:13: never-matches: \"/Admin/ /Private/\" holds white space",
		"lint-example.txt:14: never-matches: \"private/\" starts with neither / nor *",
		"lint-example.txt:15: invalid-value: ",
		"lint-example.txt:16: unsupported: Noindex is not part of robots.txt",
		"lint-example.txt: 10 problems",
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, len(want), stdout)
	for i, w := range want {
		assert.True(t, strings.HasPrefix(lines[i], w), "line %d: %q does not start with %q", i, lines[i], w)
	}

	code, stdout, _ = runCmd(t, "", "lint", rfcExample)
	assert.Equal(t, 0, code, "the RFC's example is clean: %s", stdout)
	assert.Empty(t, stdout)
}

func TestShadowed(t *testing.T) {
	tests := []struct {
		name  string
		rules string
		lines []int // the lines reported as never winning
	}{
		{"duplicate", "Disallow: /a\nDisallow: /a", []int{3}},
		{"allow wins a tie", "Disallow: /a\nAllow: /a", []int{2}},
		{"allow wins a tie, either order", "Allow: /a\nDisallow: /a", []int{3}},
		{"trailing star is longer", "Disallow: /a\nAllow: /a*", []int{2}},
		{"longer allow inside shorter disallow", "Disallow: /a\nAllow: /a/b", nil},
		{"shorter allow, longer disallow", "Allow: /a\nDisallow: /a/b", nil},
		{"anchored loses only on its path", "Disallow: /a\nAllow: /a$", nil},
		{"anchored beaten on its one path", "Disallow: /a$\nAllow: /a*$", []int{2}},
		{"anchored equal", "Disallow: /a$\nAllow: /a$", []int{2}},
		{"anchored winner does not cover extensions", "Disallow: /a/\nAllow: /a/$", nil},
		{"index.html may be anchored", "Disallow: /a/\nAllow: /a/index.html", nil},
		{"wildcard rules are not judged", "Disallow: /*a\nAllow: /*a*", nil},
		{"escapes are the same rule", "Disallow: /%7Ea\nAllow: /~a", []int{2}},
		{"an escaped slash is another rule", "Disallow: /a%2F\nDisallow: /a/", nil},
		{"an escaped letter is the same rule", "Disallow: /a%62\nDisallow: /ab", []int{3}},
		{"empty patterns match nothing", "Disallow:\nAllow:", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := parseGroup(t, "User-agent: *\n"+tt.rules+"\n")
			var lines []int
			for _, f := range shadowed(r) {
				lines = append(lines, f.line)
			}
			assert.Equal(t, tt.lines, lines)
		})
	}
}

func TestLintHostile(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.txt")
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for b.Len() <= maxBytes {
		b.WriteString("Disallow: /some/long/path/to/fill/the/file\n")
	}
	require.NoError(t, os.WriteFile(big, []byte(b.String()), 0o644))
	html := filepath.Join(dir, "html.txt")
	require.NoError(t, os.WriteFile(html, []byte("<!DOCTYPE html>\n<html><body>Disallow: /</body></html>\n"), 0o644))
	binary := filepath.Join(dir, "bin.txt")
	require.NoError(t, os.WriteFile(binary, []byte("User-agent: *\nDisallow: /\xff\xfe\x00x\n"), 0o644))

	code, stdout, _ := runCmd(t, "", "lint", big)
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "too-large: the file is ")
	assert.Contains(t, stdout, "never-wins", "the repeated rule")

	code, stdout, _ = runCmd(t, "", "lint", html)
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "html.txt: html: the file is an HTML page")

	code, stdout, _ = runCmd(t, "", "lint", binary)
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "bin.txt:2: nul-byte")
	assert.Contains(t, stdout, "bin.txt:2: invalid-utf8")
}

// check -file and lint read a file as the fetcher reads a body: the first
// 500 KiB (RFC 9309 §2.5), less a line the cap cuts, and never further. A
// rule past the cap does not apply, and a file of any size, or no end
// (/dev/zero), costs what a 500 KiB one does.
func TestFilesAreCapped(t *testing.T) {
	dir := t.TempDir()
	const line = "Disallow: /" + "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" + "\n" // 101 bytes
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for b.Len() <= maxBytes {
		b.WriteString(line)
	}
	b.WriteString("Disallow: /late\n")
	long := filepath.Join(dir, "long.txt")
	require.NoError(t, os.WriteFile(long, []byte(b.String()), 0o644))
	whole := 1 + (maxBytes-len("User-agent: *\n"))/len(line) // the lines that fit whole under the cap

	// 100 MiB of NUL bytes, without taking the disk: one line, cut by the
	// cap and dropped.
	sparse := filepath.Join(dir, "sparse.txt")
	f, err := os.Create(sparse)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(100<<20))
	require.NoError(t, f.Close())

	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // a part of it
	}{
		{"check: a rule past the cap does not apply", []string{"check", "-file", long, "/late", "/" + strings.Repeat("a", 89)}, 1,
			"ALLOWED     /late  no rule matched\nDISALLOWED  /" + strings.Repeat("a", 89) + "  line 2: " + strings.TrimSuffix(line, "\n") + "\n"},
		{"lint: where crawlers stop", []string{"lint", long}, 1,
			fmt.Sprintf("long.txt:%d: too-large: the file is %d bytes; crawlers read the first %d, up to the line before this one", whole+1, b.Len(), maxBytes)},
		{"check: 100 MiB", []string{"check", "-file", sparse, "/x"}, 0, "ALLOWED     /x  no group for robots-cli and no * group\n"},
		{"usage: a rule past the cap does not apply", []string{"usage", "-file", long, "/late"}, 0, "\nverdict        ALLOWED: no rule matched\n"},
		{"usage: 100 MiB", []string{"usage", "-file", sparse, "/x"}, 0, "\nverdict        ALLOWED: no group for robots-cli and no * group\n"},
		{"lint: 100 MiB", []string{"lint", sparse}, 1,
			fmt.Sprintf("sparse.txt:1: too-large: the file is %d bytes; crawlers read the first %d", 100<<20, maxBytes)},
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		tests = append(tests,
			struct {
				name   string
				args   []string
				code   int
				stdout string
			}{"check: /dev/zero", []string{"check", "-file", "/dev/zero", "/x"}, 0, "ALLOWED     /x  no group for robots-cli and no * group\n"},
			struct {
				name   string
				args   []string
				code   int
				stdout string
			}{"lint: /dev/zero", []string{"lint", "/dev/zero"}, 1, fmt.Sprintf("zero:1: too-large: the file is longer than %d bytes; crawlers read the first %d", maxBytes, maxBytes)})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			code, stdout, stderr := runCmd(t, "", tt.args...)
			runtime.ReadMemStats(&after)
			// A bound well above the 500 KiB read, far below the 100 MiB file.
			require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(32<<20), "bytes allocated")
			assert.Equal(t, tt.code, code, stderr)
			assert.True(t, strings.Contains(stdout, tt.stdout), "%.300q does not contain %q", stdout, tt.stdout)
		})
	}
}

func TestLintURL(t *testing.T) {
	const htmlPage = "<!DOCTYPE html>\n<html><head><title>Not Found</title></head><body>Disallow: /</body></html>\n"
	const htmlType = "text/html; charset=utf-8"
	tests := []struct {
		name string
		srv  *httptest.Server
		path string
		code int
		want []string // the lines of the report, after the robots.txt URL
	}{
		{"clean", site(t, 200, "User-agent: *\nDisallow: /private\n"), "/any/page", 0, nil},
		{"empty file", site(t, 200, ""), "", 0, nil},
		{"HTML served as robots.txt", site(t, 200, "<html>not found</html>", "Content-Type", htmlType), "/robots.txt", 1,
			[]string{": html: served as text/html; charset=utf-8 — ", ": html: the file is an HTML page, not robots.txt: crawlers skip or misread 1 of its lines — ", ": 2 problems"}},
		// A 404 means there is no robots.txt: its HTML error page is not
		// a robots.txt served as HTML.
		{"404", site(t, 404, ""), "", 1,
			[]string{": no-robots-txt: there is no robots.txt (404 Not Found: unavailable) — without a robots.txt, crawlers may fetch everything", ": 1 problem"}},
		{"HTML 404 page", site(t, 404, htmlPage, "Content-Type", htmlType), "/x", 1,
			[]string{": no-robots-txt: there is no robots.txt (404 Not Found: unavailable) — ", ": 1 problem"}},
		{"HTML 410 page", site(t, 410, htmlPage, "Content-Type", htmlType), "", 1,
			[]string{": no-robots-txt: there is no robots.txt (410 Gone: unavailable) — ", ": 1 problem"}},
		{"HTML 403 page", site(t, 403, htmlPage, "Content-Type", htmlType), "", 1,
			[]string{": unavailable: 403 Forbidden: unavailable — ", ": 1 problem"}},
		{"HTML 500 page", site(t, 500, htmlPage, "Content-Type", htmlType), "", 1,
			[]string{": unreachable: 500 Internal Server Error: unreachable — ", ": 1 problem"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", "lint", tt.srv.URL+tt.path)
			assert.Equal(t, tt.code, code, stdout)
			assert.Empty(t, stderr)
			var lines []string
			if stdout != "" {
				lines = strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			}
			require.Len(t, lines, len(tt.want), stdout)
			for i, w := range tt.want {
				assert.True(t, strings.HasPrefix(lines[i], tt.srv.URL+"/robots.txt"+w), "line %d: %q does not start with %q", i, lines[i], w)
			}
		})
	}
}

// BenchmarkCheckStdin decides 100,000 URLs read from standard input against
// a local file, as "robots check -file" does; ns/URL is the figure.
func BenchmarkCheckStdin(b *testing.B) {
	paths := []string{"/example/page.html", "/example/other/page.html?q=1", "/images/logo.gif", "/publications/2024/report.pdf", "/"}
	var in strings.Builder
	const n = 100_000
	for i := 0; i < n; i++ {
		in.WriteString("https://example.com")
		in.WriteString(paths[i%len(paths)])
		in.WriteByte('\n')
	}
	input := in.String()
	b.ReportAllocs()
	for b.Loop() {
		run([]string{"check", "-file", rfcExample, "-agent", "barbot"}, strings.NewReader(input), io.Discard, io.Discard)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/URL")
}

// BenchmarkCheckStdinManyHosts decides 10,000 URLs on 10,000 sites against
// a 100 KB file: with -file the file is parsed once, not once per site.
func BenchmarkCheckStdinManyHosts(b *testing.B) {
	var file strings.Builder
	file.WriteString("User-agent: *\n")
	for i := 0; file.Len() < 100_000; i++ {
		fmt.Fprintf(&file, "Disallow: /section-%d/private/\n", i)
	}
	path := filepath.Join(b.TempDir(), "robots.txt")
	require.NoError(b, os.WriteFile(path, []byte(file.String()), 0o644))
	var in strings.Builder
	const n = 10_000
	for i := 0; i < n; i++ {
		fmt.Fprintf(&in, "https://host%d.example.com/section-%d/private/page\n", i, i%100)
	}
	input := in.String()
	b.ReportAllocs()
	for b.Loop() {
		run([]string{"check", "-file", path}, strings.NewReader(input), io.Discard, io.Discard)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/URL")
}

// assertHas checks that out contains want, and shows only the end of a
// long out when it does not.
func assertHas(t *testing.T, out, want string) {
	t.Helper()
	if !strings.Contains(out, want) {
		t.Errorf("the output does not contain\n\t%q\nits last 1,000 bytes are\n%s", want, out[max(0, len(out)-1000):])
	}
}

// parseGroup parses body and returns its only group.
func parseGroup(t *testing.T, body string) parser.Group {
	t.Helper()
	r := parser.Parse([]byte(body))
	require.Len(t, r.Groups, 1)
	return r.Groups[0]
}

// The CLI reads a crawler's name as the library does: MJ12bot obeys the
// group that names it in full, with or without a version.
func TestAgentWithDigits(t *testing.T) {
	f := filepath.Join(t.TempDir(), "robots.txt")
	require.NoError(t, os.WriteFile(f, []byte("User-agent: MJ12bot\nDisallow: /\n\nUser-agent: *\nAllow: /\n"), 0o644))
	code, stdout, _ := runCmd(t, "", "check", "-file", f, "-agent", "MJ12bot", "https://example.com/page")
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "DISALLOWED")
	code, _, _ = runCmd(t, "", "check", "-file", f, "-agent", "OtherBot", "https://example.com/page")
	assert.Equal(t, 0, code)
}

// fetch lists each group's Content-Usage rules and Content-Signal records
// under it, the first maxUsages of each and a count of the rest; -all
// lists them all.
func TestFetchAIPREF(t *testing.T) {
	var b strings.Builder
	b.WriteString("User-agent: a\nDisallow: /x\nContent-Signal: search=yes\n\nUser-agent: b\nAllow: /\n") // lines 1-6
	for i := range maxUsages + 2 {
		fmt.Fprintf(&b, "Content-Usage: /p%d train-ai=n\n", i) // lines 7-13
	}
	for i := range maxUsages + 3 {
		fmt.Fprintf(&b, "Content-Signal: ai-train=no, search=%s\n", []string{"yes", "no"}[i%2]) // lines 14-21
	}
	b.WriteString("\nUser-agent: c\nDisallow: /\n") // no records of its own
	srv := site(t, 200, b.String())

	code, stdout, stderr := runCmd(t, "", "fetch", srv.URL)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "\n3 groups\n"+
		"  line 1: user-agent a: 1 rule (0 allow, 1 disallow)\n"+
		"    line 3: Content-Signal: search=yes\n"+
		"  line 5: user-agent b: 1 rule (1 allow, 0 disallow)\n"+
		"    line 7: Content-Usage: /p0 train-ai=n\n"+
		"    line 8: Content-Usage: /p1 train-ai=n\n"+
		"    line 9: Content-Usage: /p2 train-ai=n\n"+
		"    line 10: Content-Usage: /p3 train-ai=n\n"+
		"    line 11: Content-Usage: /p4 train-ai=n\n"+
		"    ... and 2 more Content-Usage rules\n"+
		"    line 14: Content-Signal: ai-train=no, search=yes\n"+
		"    line 15: Content-Signal: ai-train=no, search=no\n"+
		"    line 16: Content-Signal: ai-train=no, search=yes\n"+
		"    line 17: Content-Signal: ai-train=no, search=no\n"+
		"    line 18: Content-Signal: ai-train=no, search=yes\n"+
		"    ... and 3 more Content-Signal records\n"+
		"  line 23: user-agent c: 1 rule (0 allow, 1 disallow)\n"+
		"\n0 sitemaps\n\n0 warnings\n", stdout)

	code, stdout, stderr = runCmd(t, "", "fetch", "-all", srv.URL)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, maxUsages+2, strings.Count(stdout, ": Content-Usage: /p"))
	assert.Equal(t, 1+maxUsages+3, strings.Count(stdout, ": Content-Signal: "))
	assert.NotContains(t, stdout, "... and")
	assert.Contains(t, stdout, "    line 21: Content-Signal: ai-train=no, search=no\n  line 23: user-agent c")
}

// fetch's usage states the limits it lists to.
func TestFetchUsageStatesLimits(t *testing.T) {
	assert.Contains(t, fetchUsage, fmt.Sprintf("Past the first %d groups, sitemaps or warnings", screenful))
	require.Equal(t, maxAgents, maxUsages, "the usage states one limit for both")
	assert.Contains(t, fetchUsage, fmt.Sprintf("a group's first %d user-agents, Content-Usage rules or Content-Signal\nrecords", maxAgents))
}
