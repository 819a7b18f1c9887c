package matcher_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
)

// periodic returns n octets of a random short period over alphabet, with a
// few octets changed: the text where greedy searches and shared prefixes are
// hardest to get right.
func periodic(rng *rand.Rand, alphabet string, n int) string {
	period := letters(rng, alphabet, 1+rng.IntN(4))
	b := []byte(strings.Repeat(period, n/len(period)+1)[:n])
	for range rng.IntN(4) {
		b[rng.IntN(n)] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// indexKnobs are settings of the path index that make its rarer paths
// common: tables after one look-up, and hashes that collide for every
// anagram.
var indexKnobs = []indexKnob{
	{"as built", 0, 0},
	{"early tables", 0, 1},
	{"colliding hashes", 1, 1},
}

type indexKnob struct {
	name  string
	base  uint64 // 0: as drawn
	after int32  // 0: as built
}

func (k indexKnob) set() (restore func()) {
	if k.after == 0 {
		return func() {}
	}
	return matcher.SetIndexKnobs(k.base, k.after)
}

// stressRobots is a file of wildcard rules whose pieces are short and long
// (past the length at which the path index compares hashes), periodic and
// not, sharing prefixes, some anchored.
func stressRobots(rng *rand.Rand, alphabet string, rules int) string {
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for i := range rules {
		key := "Disallow"
		if i%2 == 0 {
			key = "Allow"
		}
		var pieces []string
		for range 1 + rng.IntN(4) {
			switch rng.IntN(3) {
			case 0:
				pieces = append(pieces, letters(rng, alphabet, 1+rng.IntN(3)))
			case 1:
				pieces = append(pieces, periodic(rng, alphabet, 1+rng.IntN(48)))
			default:
				pieces = append(pieces, letters(rng, alphabet, 1+rng.IntN(40)))
			}
		}
		anchor := ""
		if rng.IntN(4) == 0 {
			anchor = "$"
		}
		fmt.Fprintf(&b, "%s: /%s*%s%s\n", key, letters(rng, alphabet, rng.IntN(2)), strings.Join(pieces, "*"), anchor)
	}
	return b.String()
}

// The path index agrees with the direct search and with the reference
// matcher on rules and paths built to stress it: periodic pieces and paths,
// long pieces compared by hashes, tables made after a few look-ups, and
// hashes that collide for every anagram (RFC 9309 §2.2.2, §2.2.3).
func TestPathIndexAgainstReference(t *testing.T) {
	for _, knobs := range indexKnobs {
		t.Run(knobs.name, func(t *testing.T) {
			defer knobs.set()()
			rng := rand.New(rand.NewPCG(11, 12))
			for i := 0; i < 150; i++ {
				alphabet := []string{"ab", "abc", "a/b", "xyz/%2F"}[i%4]
				body := stressRobots(rng, alphabet, 1+rng.IntN(30))
				r := parser.Parse([]byte(body))
				m := matcher.CompileTrie(r, "bot")
				ref := newReference(r, []string{"bot"})
				for range 8 {
					path := "/" + periodic(rng, alphabet, 1+rng.IntN(300))
					got := m.Match(path)
					require.Equal(t, got, m.MatchIndexed(path), "%q on\n%s", path, body)
					want, line := ref.verdict(path)
					require.Equal(t, want, got.Allowed, "%q on\n%s", path, body)
					require.Equal(t, line, got.Rule.Line, "deciding line for %q on\n%s", path, body)
				}
			}
		})
	}
}

// The hostile shapes, scaled down so that the reference matcher can judge
// them, get the same verdicts through the path index, the direct search and
// the reference.
func TestHostileAgainstReference(t *testing.T) {
	for _, knobs := range indexKnobs {
		for _, c := range hostileCases(6<<10, 700) {
			t.Run(knobs.name+"/"+c.name, func(t *testing.T) {
				defer knobs.set()()
				r := parser.Parse(c.body)
				m := matcher.CompileTrie(r, "ExampleBot")
				ref := newReference(r, []string{"ExampleBot"})
				// The shape's path, its prefixes, and paths one piece
				// of a rule longer, so that rules match as well as fail.
				paths := []string{c.path, c.path[:len(c.path)/2], c.path[:len(c.path)/3]}
				for _, g := range r.Groups {
					for i, rule := range g.Rules {
						if i%37 == 0 {
							paths = append(paths, c.path+strings.ReplaceAll(strings.TrimSuffix(rule.Pattern, "$"), "*", ""))
						}
					}
				}
				for _, path := range paths {
					got := m.Match(path)
					require.Equal(t, got, m.MatchIndexed(path), "%s: %q", c.name, path)
					want, line := ref.verdict(path)
					require.Equal(t, want, got.Allowed, "%s: %q", c.name, path)
					require.Equal(t, line, got.Rule.Line, "%s: %q", c.name, path)
				}
			})
		}
	}
}

// Paths longer than the path index's tables reach (64 KiB) are looked up
// without them, with the same verdicts.
func TestPathIndexLongPath(t *testing.T) {
	body := "User-agent: *\nDisallow: /*a*b*c\nAllow: /*a*b*c*d$\nDisallow: /*x*y\nAllow: /*" + strings.Repeat("ab", 40) + "*q\n"
	r := parser.Parse([]byte(body))
	m := matcher.CompileTrie(r, "bot")
	ref := newReference(r, []string{"bot"})
	long := strings.Repeat("ab", 40<<10)
	// Pieces found only before where they are looked for: a look-up that
	// finds nothing must not land in the path.
	for _, path := range []string{"/" + long, "/" + long + "c", "/" + long + "cd", "/" + long + "xq", "/x" + long + "y", "/" + long + "q",
		"/cdxyq" + long, "/cd" + long + "c", "/yxq" + long + "x"} {
		got := m.Match(path)
		require.Equal(t, got, m.MatchIndexed(path), "%d octets", len(path))
		want, line := ref.verdict(path)
		require.Equal(t, want, got.Allowed, "%d octets, ending %q", len(path), path[len(path)-3:])
		require.Equal(t, line, got.Rule.Line, "%d octets, ending %q", len(path), path[len(path)-3:])
	}
}

// A piece looked up from its ancestor's positions gets positions of its own
// when it is found often, or fails often, with the same answers: "abx" is
// looked up at each "a" of the path, until found or until the failures pay
// for its own set.
func TestPathIndexOwnSet(t *testing.T) {
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for i := range 40 {
		fmt.Fprintf(&b, "Disallow: /*abx%s\n", strings.Repeat("*b", 1+i))
	}
	b.WriteString("Allow: /*abx\n")
	r := parser.Parse([]byte(b.String()))
	m := matcher.CompileTrie(r, "bot")
	ref := newReference(r, []string{"bot"})
	for _, path := range []string{"/" + strings.Repeat("ab", 1000) + "abx", "/" + strings.Repeat("ab", 1000) + "abxb",
		"/abx" + strings.Repeat("ab", 1000), "/bx" + strings.Repeat("ab", 1000)} {
		got := m.MatchIndexed(path)
		require.Equal(t, m.Match(path), got)
		want, line := ref.verdict(path)
		require.Equal(t, want, got.Allowed, "%q", path[len(path)-5:])
		require.Equal(t, line, got.Rule.Line, "%q", path[len(path)-5:])
	}
}

// Checks through the path index run concurrently on one Matcher, each with
// an index of its own from the pool: run with -race.
func TestPathIndexConcurrent(t *testing.T) {
	c := hostileCases(16<<10, 1<<10)[0]
	m := matcher.CompileTrie(parser.Parse(c.body), "bot")
	paths := []string{c.path, c.path[:len(c.path)/2], "/" + c.path[len(c.path)/3:], "/x"}
	want := make([]matcher.Result, len(paths))
	for i, p := range paths {
		want[i] = m.Match(p)
	}
	done := make(chan struct{})
	for g := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 200 {
				k := (g + i) % len(paths)
				if got := m.MatchIndexed(paths[k]); got != want[k] {
					t.Errorf("%q: %+v, want %+v", paths[k], got, want[k])
					return
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
}
