// Package benchdata holds the inputs of the project's benchmarks, shared by
// the library's own benchmarks and by the peer comparison in ../bench, so
// that both measure the same thing.
//
// Non-goals: timing anything itself; it only supplies inputs.
package benchdata

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/crawlkit/robots/internal/sharedtest"
)

// Case is one matching benchmark: a robots.txt body, the crawler's product
// token, and the URL paths asked of it, in turn.
type Case struct {
	Name  string
	Body  []byte
	Agent string
	Paths []string
}

// typicalPaths are URL paths of the kind a crawler asks about a large site:
// short and long, with queries, escapes and file suffixes.
var typicalPaths = []string{
	"/",
	"/search/?text=robots.txt&lr=213",
	"/blogs/pad/",
	"/collections/user/alice/search/cats",
	"/company/press_releases/2019/2019-05-16.rss",
	"/maps/213/moscow/?ll=37.620393%2C55.753960&z=10",
	"/images/search?text=%D0%BA%D0%BE%D1%82%D0%B8%D0%BA%D0%B8&from=tabbar",
	"/support/webmaster/robot-workings/robots-txt.html",
	"/aura/promo/summer",
	"/blog/company/12345?tag=news",
	"/news/story/Some_long_headline_of_the_day--5f2e8c1d?lang=ru&utm_source=x",
	"/legal/confidential/",
}

// corpusCase reads a file of the real corpus; ok is false when the corpus
// is absent.
func corpusCase(name, file string, paths []string) (Case, bool) {
	dir, ok := sharedtest.Lookup("corpus/robots")
	if !ok {
		return Case{}, false
	}
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return Case{}, false
	}
	return Case{Name: name, Body: b, Agent: "ExampleBot", Paths: paths}, true
}

// Typical is the "typical file of ~200 rules": yandex.ru's robots.txt from
// the corpus (217 rules for "*": 180 plain, 31 with inner wildcards, 6
// anchored), against typicalPaths. ok is false when the corpus is absent.
func Typical() (Case, bool) {
	return corpusCase("typical-217", "1958.txt", typicalPaths)
}

// Wildcards is a wildcard-heavy real file: softonic.com, 157 of its 180
// rules for "*" hold an inner '*'.
func Wildcards() (Case, bool) {
	return corpusCase("wildcards-180", "1866.txt", typicalPaths)
}

// PlainRules is a synthetic file of n plain-prefix rules (no wildcards),
// with paths that hit deep rules, miss narrowly, and miss entirely; its cost
// must not grow linearly with n.
func PlainRules(n int) Case {
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "Disallow: /section%d/page%d/\n", i%97, i)
		if i%10 == 0 {
			fmt.Fprintf(&b, "Allow: /section%d/page%d/public\n", i%97, i)
		}
	}
	paths := []string{
		"/",
		fmt.Sprintf("/section%d/page%d/private/file.html", (n-1)%97, n-1),
		fmt.Sprintf("/section%d/page%d/public/index.html", 0, 0),
		"/section5/page999999/x",
		"/unrelated/path/that/matches/nothing?q=1",
		"/section1/",
	}
	return Case{Name: fmt.Sprintf("plain-%d", n), Body: []byte(b.String()), Agent: "ExampleBot", Paths: paths}
}

// Pathological is a 20-star pattern ("/*a*a…*a*b") against an 8 KiB path of
// 'a's, the worst case of backtracking matchers.
func Pathological() Case {
	body := "User-agent: *\nDisallow: /" + strings.Repeat("*a", 20) + "*b\n"
	return Case{Name: "pathological-20-stars-8KiB", Body: []byte(body), Agent: "ExampleBot",
		Paths: []string{"/" + strings.Repeat("a", 8<<10)}}
}

// Matching returns every matching case available here: the corpus ones only
// when the corpus is present.
func Matching() []Case {
	var cases []Case
	if c, ok := Typical(); ok {
		cases = append(cases, c)
	}
	if c, ok := Wildcards(); ok {
		cases = append(cases, c)
	}
	cases = append(cases, PlainRules(10), PlainRules(200), PlainRules(5000), Pathological())
	return cases
}

// Corpus returns every file of the real corpus, in name order, and their
// total size; none when the corpus is absent.
func Corpus() ([][]byte, int) {
	dir, ok := sharedtest.Lookup("corpus/robots")
	if !ok {
		return nil, 0
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, 0
	}
	var files [][]byte
	total := 0
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		files = append(files, b)
		total += len(b)
	}
	return files, total
}

// WithUsage returns c's body with Content-Usage rules added to the group of
// c's agent: a path-less one and one for each of its first 20 paths, for
// benchmarks of Usage beside Allowed on the same file.
func WithUsage(c Case) []byte {
	body := append([]byte(nil), c.Body...)
	body = append(body, "\nUser-agent: "+c.Agent+"\nAllow: /\nContent-Usage: train-ai=n\n"...)
	for _, p := range c.Paths[:min(20, len(c.Paths))] {
		body = append(body, "Content-Usage: "+p+" train-ai=y, search=y\n"...)
	}
	return body
}
