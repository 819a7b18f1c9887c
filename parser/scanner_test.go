package parser

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/internal/sharedtest"
)

// referenceLine is how Google's reference parser splits one line: cut at
// MaxLineLength and at NUL, the comment removed, split at the first colon
// into trimmed key and value, or, without a colon, into exactly two
// white-space separated tokens. It is written for clarity, octet by octet,
// as the oracle of the scanner's fast paths.
type referenceLine struct {
	key                                    key
	typo                                   bool
	rawKey, value                          string
	tooLong, nul, comment, empty, unparsed bool
	missingColon                           bool
	ascii                                  bool // of the line as used
}

func splitReference(text string) (l referenceLine) {
	if len(text) > MaxLineLength {
		text, l.tooLong = text[:MaxLineLength], true
	}
	if i := strings.IndexByte(text, 0); i >= 0 {
		text, l.nul = text[:i], true
	}
	l.ascii = true
	for i := 0; i < len(text); i++ {
		l.ascii = l.ascii && text[i] < 0x80
	}
	if i := strings.IndexByte(text, '#'); i >= 0 {
		text, l.comment = text[:i], true
	}
	text = strings.Trim(text, " \t")
	if text == "" {
		l.empty = true
		return l
	}
	k, v, found := strings.Cut(text, ":")
	if found {
		k, v = strings.Trim(k, " \t"), strings.Trim(v, " \t")
	} else {
		fields := strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == '\t' })
		if len(fields) != 2 {
			l.unparsed = true
			return l
		}
		k, v, l.missingColon = fields[0], fields[1], true
	}
	if k == "" {
		l.unparsed, l.missingColon = true, false
		return l
	}
	l.rawKey, l.value = k, v
	l.key, l.typo = classifyReference(k)
	return l
}

// classifyReference is classify as a list of prefixes and keys, tried in
// order.
func classifyReference(k string) (key, bool) {
	lower := strings.ToLower(k)
	prefixes := []struct {
		prefix string
		key    key
		typo   bool
	}{
		{"user-agent", keyUserAgent, false}, {"useragent", keyUserAgent, true}, {"user agent", keyUserAgent, true},
		{"allow", keyAllow, false},
		{"disallow", keyDisallow, false}, {"dissallow", keyDisallow, true}, {"dissalow", keyDisallow, true},
		{"disalow", keyDisallow, true}, {"diasllow", keyDisallow, true}, {"disallaw", keyDisallow, true},
		{"sitemap", keySitemap, false}, {"site-map", keySitemap, true},
	}
	for _, p := range prefixes {
		if hasPrefixFold([]byte(k), p.prefix) {
			return p.key, p.typo || len(k) != len(p.prefix)
		}
	}
	switch lower {
	case "crawl-delay":
		return keyCrawlDelay, false
	case "content-usage":
		return keyContentUsage, false
	case "content-signal":
		return keyContentSignal, false
	case "host", "clean-param", "noindex", "noarchive", "nofollow", "request-rate", "visit-time", "revisit-after", "domain":
		return keyUnused, false
	}
	return keyUnknown, false
}

// checkScanner compares every line the scanner reads of body with the
// reference split of the same line.
func checkScanner(t *testing.T, body []byte) bool {
	t.Helper()
	raw := referenceLines(body)
	got := scanAll(body)
	if !assert.Len(t, got, len(raw), "lines of %q", body) {
		return false
	}
	for i, l := range got {
		want := splitReference(raw[i])
		have := referenceLine{
			key: l.key, typo: l.has(flagTypo), rawKey: string(l.rawKey), value: string(l.value),
			tooLong: l.has(flagTooLong), nul: l.has(flagNUL), comment: l.comment, empty: l.empty, unparsed: l.has(flagUnparsable),
			missingColon: l.has(flagMissingColon), ascii: l.ascii,
		}
		if !assert.Equal(t, want, have, "line %d %q of %q", i+1, raw[i], body) ||
			!assert.Equal(t, i+1, l.num) {
			return false
		}
	}
	return true
}

// The scanner reads a line through one of several paths: the common keys
// at the start of a line with 16 octets of the body after its start, the
// line end and the colon found in the first words, or searched for; and
// near the end of the body, none of the word reads. Every line reads as the
// reference says, wherever it falls.
func TestScannerAgainstReference(t *testing.T) {
	keys := []string{
		"user-agent", "User-Agent", "USER-AGENTS", "user-agenT", "useragent", "user agent", "user-agen", "user\x00agent",
		"allow", "ALLOWED", "allo", "alloW", "disallow", "DisAllow", "disallowed", "dissallow", "dissalow", "disalow",
		"diasllow", "disallaw", "disallo", "dis@llow", "sitemap", "SiteMaps", "site-map", "sitema", "sitemap-x",
		"crawl-delay", "Crawl-Delay", "crawl-delays", "content-usage", "Content-Signal", "content-", "clean-param",
		"host", "hos", "hosts", "domain", "noindex", "noarchive", "nofollow", "request-rate", "revisit-after",
		"visit-time", "unicorns", "a", "", "\xEF\xBB\xBFuser-agent", "ÿser-agent", "user-agent-with-a-long-tail",
	}
	seps := []string{":", ": ", " : ", "\t:\t", " ", "\t", "", "::", " :"}
	values := []string{"", "/", "/a", "*", "/a b", "/a#c", "# c", "x\x00y", "\xff", "é", "/" + strings.Repeat("a", 70), "t=n, a=y"}
	lead := []string{"", " ", "\t "}
	ends := []string{"\n", "\r", "\r\n"}
	pad := "\nUser-agent: padding to 16+\n"
	for _, k := range keys {
		for _, sep := range seps {
			for _, v := range values {
				for _, ld := range lead {
					line := ld + k + sep + v
					for _, end := range ends {
						// In the middle of a body, with words to read after it.
						if !checkScanner(t, []byte(pad+line+end+pad)) {
							return
						}
					}
					// At the end of a body, short of a word.
					if !checkScanner(t, []byte("x\n"+line)) {
						return
					}
				}
			}
		}
	}
	// Random bodies of the same pieces, and of the octets that end or cut
	// lines, so that lines end at every offset of a word.
	pieces := append(append(keys, seps...), values...)
	pieces = append(pieces, "\n", "\r", "\r\n", "#", "\x00", ":", " ", "\xEF\xBB\xBF")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20_000 {
		var b []byte
		for range 1 + rng.IntN(20) {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		if !checkScanner(t, b) {
			return
		}
	}
	// Long lines: past 64 octets the line end is searched for, past
	// MaxLineLength the line is cut.
	for _, n := range []int{15, 16, 17, 63, 64, 65, MaxLineLength - 12, MaxLineLength - 11, MaxLineLength - 10, MaxLineLength + 3} {
		for _, k := range []string{"disallow: ", "user-agent ", "x:", "a b#"} {
			long := k + strings.Repeat("/", max(n-len(k), 0))
			for _, tail := range []string{"", "\n", "\r\nallow: /x", "#c\n", "\x00\n", ":x\n", "\xff\n"} {
				require.True(t, checkScanner(t, []byte(long+tail)), "%d %q %q", n, k, tail)
			}
		}
	}
	// A line cut at MaxLineLength just before the colon of a common key,
	// or just before a non-ASCII octet.
	for _, k := range []string{"disallow", "allow", "user-agent", "sitemap", "x"} {
		for d := -1; d <= 1; d++ {
			cut := strings.Repeat(" ", MaxLineLength-len(k)+d) + k
			for _, tail := range []string{": /a/b/c/d/e/f/g/h\n", "\xff: /a/b/c/d/e/f/g/h\n"} {
				require.True(t, checkScanner(t, []byte(cut+tail+"allow: /x")), "%q %d %q", k, d, tail)
			}
		}
	}
}

// Every line of the real corpus reads as the reference says.
func TestScannerCorpus(t *testing.T) {
	for name, body := range sharedtest.Corpus(t) {
		if !checkScanner(t, body) {
			t.Fatalf("in %s", name)
		}
	}
}

// classify agrees with the reference on every key of the tests above and
// on their prefixes, in every case.
func TestClassify(t *testing.T) {
	for _, k := range []string{
		"user-agent", "useragent", "user agent", "allow", "disallow", "dissallow", "dissalow", "disalow",
		"diasllow", "disallaw", "sitemap", "site-map", "crawl-delay", "content-usage", "content-signal",
		"host", "clean-param", "noindex", "noarchive", "nofollow", "request-rate", "visit-time",
		"revisit-after", "domain",
	} {
		for i := 0; i <= len(k); i++ {
			for _, v := range []string{k[:i], strings.ToUpper(k[:i]), k[:i] + "x", k[:i] + "@", k + k[:i]} {
				wantKey, wantTypo := classifyReference(v)
				gotKey, gotTypo := classify([]byte(v))
				assert.Equal(t, wantKey, gotKey, "%q", v)
				assert.Equal(t, wantTypo, gotTypo, "%q", v)
			}
		}
	}
	assert.Equal(t, keyUnknown, func() key { k, _ := classify(bytes.ToUpper([]byte("\x00isallow"))); return k }())
}

// dedupe keeps the first of each value, in order, whatever the number of
// values and of duplicates, on both sides of its switch to a set.
func TestDedupe(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var spare []int32 // one table for every call: each must clear it
	for _, n := range []int{0, 1, 2, 15, 16, 17, 18, 47, 48, 49, 100, 1000, 5000} {
		for _, distinct := range []int{1, 2, n/2 + 1, n + 1} {
			in := make([]string, n)
			for i := range in {
				in[i] = "https://example.com/sitemap-" + strings.Repeat("x", rng.IntN(3)) + string(rune('a'+rng.IntN(distinct)%26)) + strings.Repeat("y", rng.IntN(distinct)/26)
			}
			var want []string
			seen := map[string]bool{}
			for _, v := range in {
				if !seen[v] {
					seen[v] = true
					want = append(want, v)
				}
			}
			got := dedupe(slices.Clone(in), &spare)
			if len(want) == 0 {
				assert.Empty(t, got)
				continue
			}
			assert.Equal(t, want, got, "%d values, %d distinct", n, distinct)
		}
	}
}
